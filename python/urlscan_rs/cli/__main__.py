"""``python -m urlscan_rs.cli`` (what ``emulator --background`` starts)."""

from . import main

if __name__ == "__main__":  # imported (by stubtest, say), it does nothing
    raise SystemExit(main())
