def paginate(items, page, per_page):
    """The items on `page` (numbered from 1), `per_page` at a time."""
    start = page * per_page
    return items[start:start + per_page]
