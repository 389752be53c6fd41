"""Reliability worker: a person's editor saving a note COUNT times, the way editors do it.

Usage: editor.py NOTE COUNT GAP_MS PAUSE_MS
Each save reads the note as it is on disk, adds the line ``- person line <i>`` at its end, and
writes it back in two steps: truncate the file (in place, no lock, same inode), wait GAP_MS, then
write the new content. PAUSE_MS between saves. Prints one JSON line: {"saves": COUNT}.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time


def main(argv: list[str]) -> int:
    note, count, gap_ms, pause_ms = argv[0], int(argv[1]), float(argv[2]), float(argv[3])
    for i in range(count):
        with open(note, "r+b") as f:
            text = f.read()
            if not text.endswith(b"\n"):
                text += b"\n"
            new = text + f"- person line {i}\n".encode()
            f.seek(0)
            f.truncate()  # step one: the note is empty on disk
            f.flush()
            os.fsync(f.fileno())
            time.sleep(gap_ms / 1000)
            f.write(new)  # step two: the new content
        time.sleep(random.uniform(0.5, 1.5) * pause_ms / 1000)
    print(json.dumps({"saves": count}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
