def receipt_line(label, net):
    vat = round(net * 0.2, 2)
    return f"{label}: {net:.2f} + VAT {vat:.2f}"
