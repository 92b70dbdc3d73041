from shop.orders import calc_tax, order_total


def summary(lines):
    total = order_total(lines)
    return f"total {total:.2f}, tax {calc_tax(total):.2f}"
