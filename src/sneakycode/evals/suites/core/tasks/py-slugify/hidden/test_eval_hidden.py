import unittest

from text import slugify


class SlugifyTest(unittest.TestCase):
    def test_single_dashes(self):
        self.assertEqual(slugify("Hello,  World!"), "hello-world")
        self.assertEqual(slugify("  Python -- 3.12 is out  "), "python-3-12-is-out")
        self.assertEqual(slugify("already-a-slug"), "already-a-slug")


if __name__ == "__main__":
    unittest.main()
