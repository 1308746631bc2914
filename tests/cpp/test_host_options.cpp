#include "cli/host_options.h"

#include <doctest/doctest.h>

using namespace pypto_golden;

TEST_CASE("host options stop at the script") {
  auto cl = parse_command_line({"--threads", "4", "k.py", "-p", "a2a3sim", "--threads", "9"});
  CHECK(cl.error.empty());
  CHECK(cl.options.threads.value() == 4);
  CHECK(cl.options.script == "k.py");
  CHECK(cl.options.script_args == std::vector<std::string>{"-p", "a2a3sim", "--threads", "9"});
}

TEST_CASE("--threads=N form and bad values") {
  CHECK(parse_command_line({"--threads=2", "k.py"}).options.threads.value() == 2);
  CHECK(parse_command_line({"--threads=0", "k.py"}).error == "--threads must be a positive integer, got '0'");
  CHECK(parse_command_line({"--threads", "x", "k.py"}).error == "--threads must be a positive integer, got 'x'");
  CHECK(parse_command_line({"--threads"}).error == "--threads needs a value (a positive integer)");
  CHECK(parse_command_line({"--threads=3000000000", "k.py"}).error == "--threads must be at most 65536, got '3000000000'");
  CHECK(parse_command_line({"--threads=65536", "k.py"}).options.threads.value() == 65536);
}

TEST_CASE("--seed takes torch's whole seed range") {
  CHECK(parse_command_line({"--seed", "0", "k.py"}).options.seed.value() == "0");
  CHECK(parse_command_line({"--seed=18446744073709551615", "k.py"}).options.seed.value() == "18446744073709551615");
  CHECK(parse_command_line({"--seed=18446744073709551616", "k.py"}).error ==
        "--seed must be an integer from 0 to 2**64 - 1, got '18446744073709551616'");
  CHECK(parse_command_line({"--seed", "-1", "k.py"}).error == "--seed must be an integer from 0 to 2**64 - 1, got '-1'");
  CHECK(parse_command_line({"--seed=", "k.py"}).error == "--seed must be an integer from 0 to 2**64 - 1, got ''");
  CHECK(parse_command_line({"--seed"}).error == "--seed needs a value (an integer from 0 to 2**64 - 1)");
  auto cl = parse_command_line({"--seed", "7", "k.py", "--seed", "8"});
  CHECK(cl.options.seed.value() == "7");
  CHECK(cl.options.script_args == std::vector<std::string>{"--seed", "8"});
}

TEST_CASE("--simulate is a host option; after the script it is the script's") {
  auto cl = parse_command_line({"--simulate", "k.py", "-p", "a2a3", "--simulate"});
  CHECK(cl.error.empty());
  CHECK(cl.options.simulate);
  CHECK(cl.options.script_args == std::vector<std::string>{"-p", "a2a3", "--simulate"});
  CHECK_FALSE(parse_command_line({"k.py", "--simulate"}).options.simulate);
}

TEST_CASE("--junit FILE and --junit=FILE") {
  CHECK(*parse_command_line({"--junit", "r.xml", "k.py"}).options.junit == "r.xml");
  CHECK(*parse_command_line({"--junit=out/r.xml", "k.py"}).options.junit == "out/r.xml");
  CHECK(parse_command_line({"--junit="}).error == "--junit needs a file");
  CHECK_FALSE(parse_command_line({"k.py", "--junit", "r.xml"}).options.junit);
}

TEST_CASE("--report DIR and --report=DIR") {
  CHECK(*parse_command_line({"--report", "out", "k.py"}).options.report == "out");
  CHECK(*parse_command_line({"--report=a/b", "k.py"}).options.report == "a/b");
  CHECK(parse_command_line({"--report"}).error == "--report needs a directory");
  CHECK(parse_command_line({"--report="}).error == "--report needs a directory");
  CHECK_FALSE(parse_command_line({"k.py", "--report", "out"}).options.report);
}

TEST_CASE("usage errors") {
  CHECK(parse_command_line({}).error == "no script given");
  CHECK(parse_command_line({"--bogus", "k.py"}).error ==
        "unknown host option '--bogus' (host options go before the script; see --help)");
  CHECK(parse_command_line({"--help", "k.py"}).options.help);
  CHECK(parse_command_line({"--version"}).options.version);
  auto dashed = parse_command_line({"--", "-weird.py", "a"});
  CHECK(dashed.options.script == "-weird.py");
  CHECK(dashed.options.script_args == std::vector<std::string>{"a"});
}

TEST_CASE("replay options apply to the script's runs") {
  auto cl = parse_command_line({"--save-data", "--golden-data", "d/data", "--runtime-dir=b", "--compile-only", "k.py", "--save-data"});
  CHECK(cl.error.empty());
  CHECK(cl.options.save_data);
  CHECK(cl.options.compile_only);
  CHECK(cl.options.golden_data.value() == "d/data");
  CHECK(cl.options.runtime_dir.value() == "b");
  CHECK(cl.options.script_args == std::vector<std::string>{"--save-data"});
  CHECK(parse_command_line({"--golden-data"}).error == "--golden-data needs a directory");
  CHECK(parse_command_line({"--runtime-dir=", "k.py"}).error == "--runtime-dir needs a directory");
}

TEST_CASE("--worker takes the rank store, the rank and the world size, and no script") {
  auto cl = parse_command_line({"--worker", "--store", "node-a:29500", "--rank=1", "--world-size", "4"});
  CHECK(cl.error.empty());
  CHECK(cl.options.worker);
  CHECK(cl.options.store.value() == "node-a:29500");
  CHECK(cl.options.rank.value() == 1);
  CHECK(cl.options.world_size.value() == 4);
  CHECK(parse_command_line({"--worker"}).error.empty());  // the environment may give the rest
  CHECK(parse_command_line({"--worker", "--rank"}).error == "--rank needs a rank (an integer from 0)");
  CHECK(parse_command_line({"--worker", "--world-size", "x"}).error == "--world-size needs a positive integer, got 'x'");
  CHECK(parse_command_line({"--worker", "--store="}).error == "--store needs HOST:PORT");
  CHECK(parse_command_line({"--world-size", "2", "k.py"}).error == "--world-size is an option of --worker");
  CHECK(parse_command_line({"--worker", "--", "k.py"}).error ==
        "--worker takes no script (a worker runs what its host process sends it), got 'k.py'");
}
