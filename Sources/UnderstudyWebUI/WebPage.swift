/// The single HTML page of the web UI; the script fills `<main>` for each view.
enum WebPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Understudy</title>
<link rel="stylesheet" href="/ui/app.css">
<script src="/ui/app.js" defer></script>
</head>
<body>
<header class="bar">
  <a class="brand" href="#/">Understudy</a>
  <nav aria-label="Sections">
    <a href="#/" data-nav="inbox">Inbox</a>
    <a href="#/tokens" data-nav="tokens">Tokens</a>
    <a href="#/start" data-nav="start">Start</a>
  </nav>
  <span id="live" class="live" role="status" aria-live="polite">connecting…</span>
</header>
<main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
<noscript><p>The inbox needs JavaScript. The API works without it: see <a href="/api/openapi.json">/api/openapi.json</a>.</p></noscript>
</body>
</html>
"""#
}
