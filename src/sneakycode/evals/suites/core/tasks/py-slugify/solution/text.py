import re


def slugify(title):
    """'Hello, World!' -> 'hello-world'"""
    text = title.lower()
    text = re.sub(r"[^a-z0-9]+", "-", text)
    return text.strip("-")
