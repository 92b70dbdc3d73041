import unittest

from validators import is_valid_email


class EmailTest(unittest.TestCase):
    def test_valid(self):
        for address in ("bob@example.com", "a.b+c@mail.example.org", "x@y.io"):
            self.assertTrue(is_valid_email(address), address)

    def test_invalid(self):
        for address in ("bob@localhost", "a b@example.com", "@example.com", "bob@", "bob@@example.com",
                        "bob@example.", "bob@example.com\n", ""):
            self.assertFalse(is_valid_email(address), address)


if __name__ == "__main__":
    unittest.main()
