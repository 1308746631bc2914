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

    def __str__(self):
        status = "PASS" if self.passed else "FAIL"
        if not self.passed and self.error:
            status += f": {self.error}"
        if self.execution_time is not None:
            status += f" ({self.execution_time:.2f}s)"
        return status
