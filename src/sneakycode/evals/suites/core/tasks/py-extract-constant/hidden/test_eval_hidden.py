import unittest
from pathlib import Path

from pricing import constants, invoice, receipt


class ConstantTest(unittest.TestCase):
    def test_constant(self):
        self.assertEqual(constants.VAT_RATE, 0.2)

    def test_behaviour(self):
        self.assertEqual(invoice.invoice_total(100), 120.0)
        self.assertEqual(receipt.receipt_line("tea", 10), "tea: 10.00 + VAT 2.00")

    def test_no_copies_left(self):
        for module in (invoice, receipt):
            source = Path(module.__file__).read_text()
            self.assertNotIn("0.2", source, module.__name__)
            self.assertIn("VAT_RATE", source, module.__name__)


if __name__ == "__main__":
    unittest.main()
