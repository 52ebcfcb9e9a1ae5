// BesluitBron's page script. The page works without it: the form is a GET
// to /search and the server renders the whole answer. This script only
// adds live updates: results appear as each platform answers (a chunked
// stream of JSON lines from /search/events, each carrying the re-rendered
// results region), and the status page refreshes itself.
(function () {
	"use strict";

	function announce(text) {
		var el = document.getElementById("announce");
		if (el) { el.textContent = text; }
	}

	function liveSearch(form, live) {
		form.addEventListener("submit", function (ev) {
			if (!window.fetch || !window.TextDecoder || !window.URLSearchParams) { return; }
			ev.preventDefault();
			var params = new URLSearchParams(new FormData(form));
			var query = params.toString();
			if (window.history && history.pushState) {
				history.pushState({ q: query }, "", "/search?" + query);
			}
			run(query, live);
		});
		window.addEventListener("popstate", function () { window.location.reload(); });
	}

	var current = null;

	function run(query, live) {
		if (current) { current.abort(); }
		var ctl = window.AbortController ? new AbortController() : null;
		current = ctl;
		live.setAttribute("aria-busy", "true");
		announce(live.getAttribute("data-busy") || "…");
		fetch(live.getAttribute("data-live-url") + "?" + query, {
			headers: { "Accept": "application/x-ndjson" },
			signal: ctl ? ctl.signal : undefined,
			credentials: "same-origin"
		}).then(function (resp) {
			if (resp.status === 429 && live.getAttribute("data-too-many")) {
				// The inbound limit (client_limit) refused: say so in the page's language.
				throw new Error(live.getAttribute("data-too-many").replace("{s}", resp.headers.get("Retry-After") || "1"));
			}
			if (!resp.ok) {
				return resp.text().then(function (t) {
					var msg = t;
					try {
						var body = JSON.parse(t);
						msg = body.error || t;
						// A refused question: the server's results region says why.
						if (typeof body.html === "string") { live.innerHTML = body.html; }
					} catch (e) { /* plain text */ }
					var retry = resp.headers.get("Retry-After");
					throw new Error(msg + (retry ? " (" + retry + " s)" : ""));
				});
			}
			if (!resp.body || !resp.body.getReader) {
				return resp.text().then(function (t) { t.split("\n").forEach(function (l) { apply(l, live); }); });
			}
			var reader = resp.body.getReader();
			var dec = new TextDecoder();
			var buf = "";
			function pump() {
				return reader.read().then(function (r) {
					if (r.done) {
						if (buf) { apply(buf, live); }
						return;
					}
					buf += dec.decode(r.value, { stream: true });
					var nl;
					while ((nl = buf.indexOf("\n")) >= 0) {
						apply(buf.slice(0, nl), live);
						buf = buf.slice(nl + 1);
					}
					return pump();
				});
			}
			return pump();
		}).catch(function (err) {
			if (err && err.name === "AbortError") { return; }
			announce(String(err && err.message ? err.message : err));
		}).then(function () {
			if (current === ctl) { live.removeAttribute("aria-busy"); }
		});
	}

	function apply(line, live) {
		line = line.trim();
		if (!line) { return; }
		var ev;
		try { ev = JSON.parse(line); } catch (e) { return; }
		if (typeof ev.html === "string") { live.innerHTML = ev.html; }
		if (ev.title) { document.title = ev.title; }
		if (ev.heading) {
			var h = document.querySelector("main h1");
			if (h) { h.textContent = ev.heading; }
		}
		if (ev.announce) { announce(ev.announce); }
	}

	function statusRefresh() {
		var box = document.getElementById("status-live");
		var btn = document.getElementById("status-pause");
		var hint = document.getElementById("status-auto");
		if (!box || !btn || !window.fetch || !window.DOMParser) { return; }
		var seconds = parseInt(btn.getAttribute("data-seconds"), 10) || 15;
		var paused = false;
		btn.hidden = false;
		if (hint) { hint.hidden = false; }
		btn.addEventListener("click", function () {
			paused = !paused;
			btn.textContent = paused ? btn.getAttribute("data-resume") : btn.getAttribute("data-pause");
			btn.setAttribute("aria-pressed", paused ? "true" : "false");
		});
		btn.setAttribute("aria-pressed", "false");
		window.setInterval(function () {
			if (paused || document.hidden) { return; }
			fetch(window.location.pathname + window.location.search, { headers: { "Accept": "text/html" }, credentials: "same-origin" })
				.then(function (r) { return r.ok ? r.text() : null; })
				.then(function (t) {
					if (!t) { return; }
					var doc = new DOMParser().parseFromString(t, "text/html");
					var fresh = doc.getElementById("status-live");
					if (fresh) { box.innerHTML = fresh.innerHTML; }
				}).catch(function () { /* the next round tries again */ });
		}, seconds * 1000);
	}

	document.addEventListener("DOMContentLoaded", function () {
		var form = document.getElementById("search-form");
		var live = document.getElementById("live");
		if (form && live) { liveSearch(form, live); }
		statusRefresh();
	});
})();
