"""RunResult: what golden.run returns."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional


@dataclass
class RunResult:
    passed: bool
    error: Optional[str] = None
    execution_time: Optional[float] = None
    work_dir: Optional[Path] = None
    bench: Any = None
    # Whether the outputs were checked against a golden: False for a run without golden_fn
    # or golden_data, and for compile_only, so a PASS that checked nothing says so.
    validated: bool = True

    def __str__(self):
        status = "PASS" if self.passed else "FAIL"
        if not self.passed and self.error:
            status += f": {self.error}"
        notes = [] if self.execution_time is None else [f"{self.execution_time:.2f}s"]
        if self.passed and not self.validated:
            notes.append("validation skipped")
        return status + (f" ({', '.join(notes)})" if notes else "")
