"""A small repository whose reference counts are known: `Ledger` and `record_payment` (billing/ledger.py) are
used by every other file, `format_receipt` by two, `lonely_helper` (tools/lonely.py) by none."""

from __future__ import annotations

from pathlib import Path

LEDGER = '''\
class Ledger:
    def __init__(self):
        self.entries = []


def record_payment(ledger, amount):
    ledger.entries.append(amount)
    return ledger


def rarely_called_cleanup(ledger):
    ledger.entries.clear()
'''

RECEIPTS = '''\
from billing.ledger import Ledger, record_payment


def format_receipt(ledger):
    record_payment(Ledger(), 0)
    return ", ".join(str(e) for e in ledger.entries)
'''

LONELY = '''\
def lonely_helper(value):
    return value * 2


class LonelyWidget:
    pass
'''


def caller(index: int) -> str:
    return (
        "from billing.ledger import Ledger, record_payment\n"
        + ("from billing.receipts import format_receipt\n" if index < 2 else "")
        + "\n\n"
        + f"def handle_order_{index}(amount):\n"
        + "    ledger = Ledger()\n"
        + "    record_payment(ledger, amount)\n"
        + "    record_payment(ledger, -amount)\n"
        + ("    return format_receipt(ledger)\n" if index < 2 else "    return ledger\n")
    )


def make_repo(ws: Path) -> Path:
    (ws / "billing").mkdir()
    (ws / "billing" / "ledger.py").write_text(LEDGER)
    (ws / "billing" / "receipts.py").write_text(RECEIPTS)
    (ws / "shop").mkdir()
    for index in range(6):
        (ws / "shop" / f"orders_{index}.py").write_text(caller(index))
    (ws / "tools").mkdir()
    (ws / "tools" / "lonely.py").write_text(LONELY)
    return ws
