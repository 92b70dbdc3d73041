from shop.orders import calc_tax, calc_total


def summary(lines):
    total = calc_total(lines)
    return f"total {total:.2f}, tax {calc_tax(total):.2f}"
