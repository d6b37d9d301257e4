#!/usr/bin/env python3
"""Checks that scripts/setup.sh installs every Debian package the build finds.

CI runs on a machine where earlier work installed packages by hand, so a package the build
needs can be missing from setup's list and nothing notices until a fresh machine fails. This
check reads every find_package / pkg_check_modules / find_library / find_path / find_program
of the project's CMake files, takes the file each one found from the build's CMakeCache.txt
(a config file, library, header directory or program), asks `dpkg -S` which package owns it,
and fails unless that package is in setup's list or in the dependency closure of a listed
package (`apt-cache depends --recurse --installed`).

  scripts/check_setup_packages.py BUILD_DIR [--drop PKG ...]

--drop removes packages from setup's list first (the test that shows the check can fail).
Exit status: 0 covered, 1 a package is missing (one line each), 2 the check could not run.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A find that found nothing leaves NAME-NOTFOUND; a find the build never reached is absent.
FIND_CALL = re.compile(
    r"\b(find_package|pkg_check_modules|find_library|find_path|find_program)\s*\(\s*([A-Za-z0-9_.+-]+)",
    re.IGNORECASE)


def cmake_files():
    skip = {os.path.join(ROOT, d) for d in ("build", ".git")}
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames
                       if os.path.join(dirpath, d) not in skip and not d.startswith("build")]
        for f in filenames:
            if f == "CMakeLists.txt" or f.endswith(".cmake"):
                yield os.path.join(dirpath, f)


def finds():
    """(kind, name, where) for every find call of the project."""
    for path in sorted(cmake_files()):
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                code = line.split("#", 1)[0]
                for kind, name in FIND_CALL.findall(code):
                    yield kind.lower(), name, f"{os.path.relpath(path, ROOT)}:{number}"


def read_cache(build_dir):
    cache = {}
    with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([^#/][^:=]*):[A-Z_]+=(.*)$", line.rstrip("\n"))
            if m:
                cache[m.group(1)] = m.group(2)
    return cache


def found_paths(kind, name, cache):
    """Files on disk that the find produced, from the cache."""
    def existing(values):
        return [v for v in values if v and not v.endswith("NOTFOUND") and os.path.exists(v)]

    if kind == "find_package":
        config_dir = cache.get(f"{name}_DIR", "")
        if existing([config_dir]):
            configs = [p for p in glob.glob(os.path.join(config_dir, "*onfig.cmake"))]
            return configs or [config_dir]
        # Module mode (FindProtobuf, FindOpenMP...): its cached include dirs, libraries, programs.
        prefix = name.upper() + "_"
        values = [v for k, v in cache.items()
                  if (k.upper().startswith(prefix) or k.startswith(name + "_"))
                  and re.search(r"(LIBRARY|INCLUDE_DIR|EXECUTABLE)", k.upper())]
        return existing(values)
    if kind == "pkg_check_modules":
        values = [v for k, v in cache.items() if k.startswith(f"pkgcfg_lib_{name}_")]
        return existing(values)
    return existing([cache.get(name, "")])


def owner(path):
    """The Debian package owning `path` (following symlinks), or None."""
    for candidate in (path, os.path.realpath(path)):
        out = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if out.returncode == 0:
            return out.stdout.split(":", 1)[0].split(",")[0].strip()
    return None


def setup_packages():
    out = subprocess.run([os.path.join(ROOT, "scripts", "setup.sh"), "--list-packages"],
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


def closure(packages):
    out = subprocess.run(
        ["apt-cache", "depends", "--recurse", "--installed", "--no-recommends", "--no-suggests",
         "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *packages],
        capture_output=True, text=True)
    names = set(packages)
    for line in out.stdout.splitlines():
        line = line.strip().lstrip("|")
        if ":" in line:
            line = line.split(":", 1)[1].strip()
        name = line.strip("<>").split(":", 1)[0]
        if name:
            names.add(name)
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--drop", action="append", default=[])
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.build_dir, "CMakeCache.txt")):
        print(f"check_setup_packages: no CMakeCache.txt in {args.build_dir}", file=sys.stderr)
        return 2
    cache = read_cache(args.build_dir)
    listed = [p for p in setup_packages() if p not in args.drop]
    covered = closure(listed)
    missing, checked = [], 0
    for kind, name, where in finds():
        paths = found_paths(kind, name, cache)
        if not paths:
            continue  # not found or optional and absent: nothing the build used
        pkg = next((o for o in map(owner, paths) if o), None)
        if pkg is None:
            continue  # built by hand or outside Debian: not setup's business
        checked += 1
        if pkg not in covered:
            missing.append(f"{where}: {kind}({name}) found {paths[0]}, from Debian package "
                           f"'{pkg}', which scripts/setup.sh does not install (add it to PACKAGES)")
    for line in missing:
        print(line)
    print(f"check_setup_packages: {checked} finds checked against {len(listed)} listed packages "
          f"({len(covered)} with dependencies); {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
