"""The table page: one ledger session served to every phone at the table (``zipai serve``).

Starlette and uvicorn serve a plain HTML/CSS/JS page (``static/``, no CDN) that shows the
running totals, the Hunan 冲百福 rounds, every hand with the app's own working, the photo
as read and the settlement, kept live by server-sent events while the app or ``zipai hand
add`` writes the same SQLite ledger. A guest may propose a hand (by total or by a photo)
when the host allows it; only the host's confirmation records it. The ledger stays the one
store: the server keeps nothing that stopping it could lose.

Imports: ``engine``, ``scorer`` and ``vision``, and the app's words (``mobile.explain`` and
``mobile.i18n``, which load no Kivy), so a phone reads the same working as the app.
"""
