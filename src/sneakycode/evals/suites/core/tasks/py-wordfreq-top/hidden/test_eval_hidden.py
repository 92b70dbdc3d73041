import contextlib
import io
import tempfile
import unittest
from pathlib import Path

from wordfreq.cli import main

TEXT = "the cat and the dog and the bird saw a cat"


def run(*argv):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "text.txt"
        path.write_text(TEXT)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main([*argv, str(path)])
        return out.getvalue().splitlines()


class TopTest(unittest.TestCase):
    def test_all(self):
        self.assertEqual(run(), ["the 3", "and 2", "cat 2", "a 1", "bird 1", "dog 1", "saw 1"])

    def test_top(self):
        self.assertEqual(run("--top", "3"), ["the 3", "and 2", "cat 2"])
        self.assertEqual(run("--top", "1"), ["the 3"])


if __name__ == "__main__":
    unittest.main()
