"""Check an installed wheel: run from a virtualenv that has only the wheel (no Rust, no checkout).

Used by tests/test_wheel.py here and by .github/workflows/release.yml for every built wheel:
it imports the package from site-packages, runs the demo, and scans a URL on the emulator.
Exits 0 when everything worked; prints what failed otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig


def main() -> int:
    import urlscan_rs
    from urlscan_rs.testing import Emulator

    site = os.path.realpath(sysconfig.get_paths()["purelib"])
    where = os.path.realpath(urlscan_rs.__file__)
    if not where.startswith(site):
        print(f"urlscan_rs was imported from {where}, not from the virtualenv's {site}", file=sys.stderr)
        return 1
    demo = subprocess.run(
        [sys.executable, "-m", "urlscan_rs", "demo", "--scan-duration", "0.5"], capture_output=True, text=True, timeout=300
    )
    if demo.returncode != 0 or "Done in" not in demo.stdout:
        print(f"the demo failed ({demo.returncode}):\n{demo.stdout}\n{demo.stderr}", file=sys.stderr)
        return 1
    with Emulator(scans=20, scan_duration=0) as emu, emu.client() as client:
        result = client.scan_and_wait("https://example.com/", initial_wait=0, interval=0.1, timeout=30)
        if result.page.domain != "example.com":
            print(f"unexpected scan result: {result!r}", file=sys.stderr)
            return 1
    print(f"wheel ok: urlscan_rs {urlscan_rs.__version__} from {where}; demo and scan passed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
