"""The browser table (``shengji-web``): ``app`` (the ASGI app and its limits), ``views`` (JSON
views of a table and of a replayed game log), ``static/`` (the page: plain HTML, CSS and JS)."""
