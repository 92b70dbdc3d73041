import re
import unittest
from pathlib import Path

from cli import build_parser


class ReadmeTest(unittest.TestCase):
    def test_options_match(self):
        text = Path("README.md").read_text()
        section = text.split("## Options", 1)[1].split("\n## ", 1)[0]
        documented = set(re.findall(r"--[a-z][a-z-]*", section))
        actual = {option for action in build_parser()._actions for option in action.option_strings
                  if option.startswith("--") and option != "--help"}
        self.assertEqual(documented, actual)
        self.assertIn("## License", text)


if __name__ == "__main__":
    unittest.main()
