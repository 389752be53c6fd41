"""Reliability worker: a person's editor saving a note until told to stop, the way editors do it.

Usage: editor.py NOTE STOP GAP_MS PAUSE_MS [halves]
Each save reads the note as it is on disk, adds the line ``- person line <i>`` at its end, and
writes it back in two steps: truncate the file (in place, no lock, same inode), wait GAP_MS, then
write the new content. With ``halves`` the steps are two parts of the write: truncate and write
the first half at once, wait GAP_MS, then write the second half. PAUSE_MS between saves. It saves until the file STOP exists (the test
makes it once vaultmem's writers are done) and prints one JSON line: {"saves": <count>}.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time


def main(argv: list[str]) -> int:
    note, stop, gap_ms, pause_ms = argv[0], argv[1], float(argv[2]), float(argv[3])
    halves = argv[4:] == ["halves"]
    i = 0
    while not os.path.exists(stop):
        with open(note, "r+b") as f:
            text = f.read()
            if not text.endswith(b"\n"):
                text += b"\n"
            new = text + f"- person line {i}\n".encode()
            f.seek(0)
            f.truncate()  # step one: the note is empty on disk (no sync: an editor's save
            # has none between its steps, and one would stretch the gap by the disk's delay)
            if halves:
                f.write(new[: len(new) // 2])  # step one ends with half the note on disk
                f.flush()
                new = new[len(new) // 2:]
            time.sleep(gap_ms / 1000)
            f.write(new)  # step two: the new content (its second half)
        i += 1
        time.sleep(random.uniform(0.5, 1.5) * pause_ms / 1000)
    print(json.dumps({"saves": i}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
