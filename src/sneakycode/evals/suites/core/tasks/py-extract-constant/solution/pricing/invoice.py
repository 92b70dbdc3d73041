from pricing.constants import VAT_RATE


def invoice_total(net):
    """What the customer pays for `net`."""
    return round(net * (1 + VAT_RATE), 2)
