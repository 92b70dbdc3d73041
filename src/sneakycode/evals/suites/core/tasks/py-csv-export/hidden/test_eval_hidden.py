import csv
import io
import unittest

from export import to_csv


class CsvTest(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(to_csv([["a", "b"], ["1", "2"]]), "a,b\n1,2\n")

    def test_quoting(self):
        rows = [["name", "quote"], ["Smith, J.", 'say "hi"'], ["two\nlines", "x"]]
        text = to_csv(rows)
        self.assertEqual(list(csv.reader(io.StringIO(text))), rows)
        self.assertTrue(text.startswith('name,quote\n"Smith, J.","say ""hi"""\n'))


if __name__ == "__main__":
    unittest.main()
