import re
import unittest
from pathlib import Path

OLD = """## 1.1.0 - 2026-01-10

- Added: `sync --exclude PATTERN`.
- Fixed: progress bar width on narrow terminals.

## 1.0.0 - 2025-12-01

- Added: first release.
"""


class ChangelogTest(unittest.TestCase):
    def test_entry(self):
        text = Path("CHANGELOG.md").read_text()
        headings = re.findall(r"^## .*$", text, re.M)
        self.assertEqual(headings[0], "## 1.2.0 - 2026-02-01")
        entry = text.split("## 1.2.0 - 2026-02-01", 1)[1].split("\n## ", 1)[0]
        added = [line for line in entry.splitlines() if line.startswith("- Added:")]
        fixed = [line for line in entry.splitlines() if line.startswith("- Fixed:")]
        self.assertTrue(added and "--dry-run" in added[0], entry)
        self.assertTrue(fixed and "empty" in fixed[0].lower(), entry)
        self.assertTrue(text.rstrip().endswith(OLD.rstrip()))
        self.assertTrue(text.startswith("# Changelog\n"))


if __name__ == "__main__":
    unittest.main()
