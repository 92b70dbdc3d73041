def invoice_total(net):
    """What the customer pays for `net`."""
    return round(net * (1 + 0.2), 2)
