// BesluitBron's page script. The page works without it: the form is a GET
// to /search and the server renders the whole answer. This script only
// adds live updates: results appear as each platform answers (a chunked
// stream of JSON lines from /search/events, each carrying the re-rendered
// results region), the status page refreshes itself, and the copy buttons
// beside a citation or a resource URI copy it (without the script they stay
// hidden, and the value is plain text to select).
(function () {
	"use strict";

	document.documentElement.classList.add("js");

	// copyText puts text on the clipboard: the Clipboard API where the page
	// is a secure context, else (plain http, an old browser) a selected
	// off-screen text area and the copy command.
	function copyText(text) {
		if (navigator.clipboard && navigator.clipboard.writeText && window.isSecureContext) {
			return navigator.clipboard.writeText(text).catch(function () { return legacyCopy(text); });
		}
		return legacyCopy(text);
	}

	function legacyCopy(text) {
		return new Promise(function (resolve, reject) {
			var active = document.activeElement;
			var ta = document.createElement("textarea");
			ta.value = text;
			ta.setAttribute("readonly", "");
			ta.setAttribute("aria-hidden", "true");
			ta.className = "copy-buffer";
			document.body.appendChild(ta);
			ta.select();
			var ok = false;
			try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
			document.body.removeChild(ta);
			if (active && active.focus) { active.focus(); }
			if (ok) { resolve(); } else { reject(new Error("copy refused")); }
		});
	}

	// selectValue selects the shown value, for the visitor to copy.
	function selectValue(box) {
		var code = box && box.querySelector(".copy-value");
		if (!code || !window.getSelection) { return; }
		var range = document.createRange();
		range.selectNodeContents(code);
		var sel = window.getSelection();
		sel.removeAllRanges();
		sel.addRange(range);
	}

	function copyButtons() {
		// One listener for every button, also those the live view adds.
		document.addEventListener("click", function (ev) {
			var btn = ev.target && ev.target.closest ? ev.target.closest("button.copy") : null;
			if (!btn) { return; }
			var box = btn.closest(".copyable");
			var out = box ? box.querySelector(".copied") : null;
			function say(text, failed) {
				if (!out) { return; }
				out.textContent = text;
				out.classList.toggle("failed", !!failed);
				window.clearTimeout(out._timer);
				out._timer = window.setTimeout(function () { out.textContent = ""; }, failed ? 10000 : 4000);
			}
			copyText(btn.getAttribute("data-copy") || "").then(function () {
				btn.setAttribute("data-copied-at", String(Date.now()));
				say(btn.getAttribute("data-copied") || "✓", false);
			}, function () {
				selectValue(box);
				say(btn.getAttribute("data-failed") || "", true);
			});
		});
	}

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
		copyButtons();
	});
})();
