import unittest
from pathlib import Path

import shop.orders
import shop.report


class RenameTest(unittest.TestCase):
    def test_new_name(self):
        self.assertEqual(shop.orders.order_total([(2, 1.5), (1, 4.0)]), 7.0)
        self.assertFalse(hasattr(shop.orders, "calc_total"))

    def test_report_still_works(self):
        self.assertEqual(shop.report.summary([(2, 1.5), (1, 4.0)]), "total 7.00, tax 0.70")
        self.assertNotIn("calc_total", Path(shop.report.__file__).read_text())


if __name__ == "__main__":
    unittest.main()
