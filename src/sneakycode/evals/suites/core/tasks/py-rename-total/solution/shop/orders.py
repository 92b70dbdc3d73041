def calc_tax(amount, rate=0.1):
    return round(amount * rate, 2)


def order_total(lines):
    """The sum of quantity * price over an order's lines."""
    return round(sum(quantity * price for quantity, price in lines), 2)
