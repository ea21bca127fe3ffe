"""Completes the wheel maturin built for scripts/build-wheel.sh (standard library only).

    python3 scripts/finish-wheel.py WHEEL --script vsr2d=PATH --license-expression EXPR
        [--license-file NAME=PATH ...]

Rewrites WHEEL in place:

- adds PATH as `<name>-<version>.data/scripts/<script>` (mode 0755), which pip, uv and every installer
  copy into the environment's bin/ as is: the `vsr2d` command line beside the Python package (what ruff
  and uv do with theirs);
- sets the metadata's licence to EXPR (`License-Expression`, PEP 639; the `License:` field maturin
  wrote from pyproject.toml is dropped) and adds each licence file as
  `<name>-<version>.dist-info/licenses/NAME` with a `License-File:` line, so the metadata names the
  licence of everything the wheel carries;
- regenerates RECORD (sha256 and size of every file).
"""

import argparse
import base64
import hashlib
import os
import sys
import tempfile
import zipfile


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel")
    parser.add_argument("--script", required=True, help="NAME=PATH of an executable for bin/")
    parser.add_argument("--license-expression", required=True)
    parser.add_argument("--license-file", action="append", default=[], help="NAME=PATH")
    args = parser.parse_args()

    with zipfile.ZipFile(args.wheel) as zin:
        entries = [(info, zin.read(info)) for info in zin.infolist()]
    dist_info = next(i.filename.split("/")[0] for i, _ in entries if i.filename.endswith(".dist-info/METADATA"))
    stem = dist_info[: -len(".dist-info")]

    out = []
    for info, data in entries:
        name = info.filename
        if name == f"{dist_info}/RECORD":
            continue
        if name == f"{dist_info}/METADATA":
            lines = data.decode().split("\n")
            # Header fields end at the first blank line; the description follows.
            end = lines.index("") if "" in lines else len(lines)
            header = [
                line
                for line in lines[:end]
                if not line.startswith(("License:", "License-Expression:", "License-File:"))
            ]
            header.append(f"License-Expression: {args.license_expression}")
            header += [f"License-File: {spec.split('=', 1)[0]}" for spec in args.license_file]
            # PEP 639's fields need metadata version 2.4.
            header = ["Metadata-Version: 2.4" if h.startswith("Metadata-Version:") else h for h in header]
            data = "\n".join(header + lines[end:]).encode()
        out.append((info, data))

    def add(name, data, mode):
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (0o100000 | mode) << 16
        out.append((info, data))

    script, path = args.script.split("=", 1)
    with open(path, "rb") as f:
        add(f"{stem}.data/scripts/{script}", f.read(), 0o755)
    for spec in args.license_file:
        name, path = spec.split("=", 1)
        with open(path, "rb") as f:
            add(f"{dist_info}/licenses/{name}", f.read(), 0o644)

    record = [record_line(info.filename, data) for info, data in out]
    record.append(f"{dist_info}/RECORD,,")
    add(f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644)

    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(args.wheel)), suffix=".whl")
    os.close(fd)
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
        for info, data in out:
            info.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(info, data, compresslevel=9)
    os.replace(tmp, args.wheel)


if __name__ == "__main__":
    sys.exit(main())
