from pricing.constants import VAT_RATE


def receipt_line(label, net):
    vat = round(net * VAT_RATE, 2)
    return f"{label}: {net:.2f} + VAT {vat:.2f}"
