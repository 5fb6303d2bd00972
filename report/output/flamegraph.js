// flamegraph.js: the script every flame graph embeds (report/output/flamegraph.c):
// hover shows a frame's details, a click zooms into a frame, Ctrl-F or F3
// searches the names with a regular expression and shows the matched
// share, and the zoom and the search are kept in the URL's fragment.
//
// It reads everything from the document, the root's data-* attributes and
// each frame's attributes and <title>, never from text spliced into it, so
// no byte of a profile is ever inside the script. make embeds this file as
// a C string (mk/js.mk), without the lines that start with "//", such as
// these, and refuses it if it holds "]]>", which would end the CDATA
// section around it; tests/e2e/test_svg.sh lints it with ESLint.
(function () {
'use strict';
var NS = 'http://www.w3.org/2000/svg', MATCH = 'rgb(230,0,230)';
var svg = document.documentElement;
var W = +svg.getAttribute('width'), PAD = +svg.getAttribute('data-pad');
var FW = +svg.getAttribute('data-fw'), TY = +svg.getAttribute('data-ty');
function $(id) { return document.getElementById(id); }
var details = $('details'), matched = $('matched'), unzoomBtn = $('unzoom');
var searchBtn = $('search'), icBtn = $('ignorecase'), box = $('frames');
var frames = [], byKey = new Map(), total = 0;
var zoomed = null, term = null, ignorecase = false;

/* Each frame's title is 'NAME (N samples, P%)', then a line per detail;
 * a name never holds a newline (the writer escapes control bytes). */
for (var i = 0; i < box.children.length; i++) {
	var g = box.children[i], ti = g.getElementsByTagName('title')[0];
	var text = ti ? ti.textContent : '', nl = text.indexOf('\n');
	var head = nl < 0 ? text : text.slice(0, nl), k = head.lastIndexOf(' (');
	var r = g.getElementsByTagName('rect')[0], t = g.getElementsByTagName('text')[0] || null;
	var f = {
		g: g, r: r, t: t, d: +g.getAttribute('data-d'), x: +g.getAttribute('data-x'),
		s: +g.getAttribute('data-s'), name: k < 0 ? head : head.slice(0, k),
		info: text.split('\n').join('; '), merged: g.classList.contains('m'),
		fill: r.getAttribute('fill'), rx: r.getAttribute('x'), rw: r.getAttribute('width'),
		tx: t ? t.getAttribute('x') : null, label: t ? t.textContent : ''
	};
	g.fgIndex = i;
	frames.push(f);
	byKey.set(f.d + ':' + f.x, f);
	if (f.d === 0)
		total = f.s;
}

function frameOf(e) {
	var g = e.target.closest ? e.target.closest('g.f') : null;
	return g && g.fgIndex !== undefined ? frames[g.fgIndex] : null;
}

/* The label that fits w pixels: the name, or its start and '...'. */
function label(f, x, w) {
	var fit = Math.floor((w - 6) / FW), s = '';
	if (fit >= 3) {
		var c = Array.from(f.name);
		s = c.length <= fit ? f.name : c.slice(0, fit - 3).join('') + '...';
	}
	if (!f.t) {
		if (!s)
			return;
		f.t = document.createElementNS(NS, 'text');
		f.t.setAttribute('y', (+f.r.getAttribute('y') + TY).toFixed(2));
		f.g.appendChild(f.t);
	}
	f.t.setAttribute('x', (x + 3).toFixed(2));
	f.t.textContent = s;
}

/* Zooming into z draws its subtree across the whole width, keeps its
 * ancestors at full width (dimmed) and hides everything else. A frame
 * at z's depth or deeper lies within z's samples only if it is z or
 * under it, since the frames of a row never overlap. */
function zoom(z) {
	var scale = (W - 2 * PAD) / z.s, end = z.x + z.s;
	zoomed = z;
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i], x, w;
		if (f.d >= z.d && f.x >= z.x && f.x + f.s <= end) {
			x = PAD + (f.x - z.x) * scale;
			w = f.s * scale;
			f.g.classList.remove('p');
		} else if (f.d < z.d && f.x <= z.x && f.x + f.s >= end) {
			x = PAD;
			w = W - 2 * PAD;
			f.g.classList.add('p');
		} else {
			f.g.classList.add('hide');
			continue;
		}
		f.g.classList.remove('hide');
		f.r.setAttribute('x', x.toFixed(2));
		f.r.setAttribute('width', w.toFixed(2));
		label(f, x, w);
	}
	unzoomBtn.classList.remove('hide');
}

function unzoom() {
	zoomed = null;
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i];
		f.g.classList.remove('hide', 'p');
		f.r.setAttribute('x', f.rx);
		f.r.setAttribute('width', f.rw);
		if (f.t) {
			f.t.textContent = f.label;
			if (f.tx !== null)
				f.t.setAttribute('x', f.tx);
		}
	}
	unzoomBtn.classList.add('hide');
}

/* Matched counts each sample once: the matches' sample ranges are
 * nested or disjoint, so their union is what is summed. */
function search(src) {
	var re, hits = [], sum = 0, end = 0;
	try {
		re = new RegExp(src, ignorecase ? 'i' : '');
	} catch (e) {
		clearSearch();
		matched.textContent = 'Bad regular expression';
		return;
	}
	term = src;
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i], hit = !f.merged && re.test(f.name);
		f.r.setAttribute('fill', hit ? MATCH : f.fill);
		f.g.classList.toggle('hit', hit);
		if (hit)
			hits.push(f);
	}
	hits.sort(function (a, b) { return a.x - b.x || b.s - a.s; });
	for (var j = 0; j < hits.length; j++) {
		var h = hits[j], e = h.x + h.s;
		if (h.x >= end) {
			sum += h.s;
			end = e;
		} else if (e > end) {
			sum += e - end;
			end = e;
		}
	}
	matched.textContent = 'Matched: ' + (total ? 100 * sum / total : 0).toFixed(1) + '%';
	searchBtn.textContent = 'Reset Search';
}

function clearSearch() {
	term = null;
	for (var i = 0; i < frames.length; i++) {
		frames[i].r.setAttribute('fill', frames[i].fill);
		frames[i].g.classList.remove('hit');
	}
	matched.textContent = ' ';
	searchBtn.textContent = 'Search';
}

/* The state lives in the fragment: d and x name the zoomed frame (its
 * depth and first sample), s is the search, i=1 ignores case. */
function save() {
	var p = [];
	if (zoomed)
		p.push('d=' + zoomed.d, 'x=' + zoomed.x);
	if (term !== null)
		p.push('s=' + encodeURIComponent(term));
	if (ignorecase)
		p.push('i=1');
	try {
		history.replaceState(null, '', location.href.replace(/#.*$/, '') +
			(p.length ? '#' + p.join('&') : ''));
	} catch (e) {
		/* a document that cannot change its URL still works */
	}
}

function restore() {
	var q = new Map(), parts = location.hash.slice(1).split('&');
	for (var i = 0; i < parts.length; i++) {
		var k = parts[i].indexOf('=');
		if (k > 0) {
			try {
				q.set(parts[i].slice(0, k), decodeURIComponent(parts[i].slice(k + 1)));
			} catch (e) {
				/* a malformed escape is ignored */
			}
		}
	}
	ignorecase = q.get('i') === '1';
	icBtn.classList.toggle('on', ignorecase);
	var z = byKey.get(q.get('d') + ':' + q.get('x'));
	if (z && z.d > 0)
		zoom(z);
	else if (zoomed)
		unzoom();
	var s = q.get('s');
	if (s !== undefined && s !== '')
		search(s);
	else if (term !== null)
		clearSearch();
}

function ask() {
	var s = window.prompt('Search for a regular expression', term === null ? '' : term);
	if (s === null)
		return;
	if (s === '')
		clearSearch();
	else
		search(s);
	save();
}

function toggleCase() {
	ignorecase = !ignorecase;
	icBtn.classList.toggle('on', ignorecase);
	if (term !== null)
		search(term);
	save();
}

box.addEventListener('mouseover', function (e) {
	var f = frameOf(e);
	if (f)
		details.textContent = f.info;
});
box.addEventListener('mouseout', function () { details.textContent = ' '; });
box.addEventListener('click', function (e) {
	var f = frameOf(e);
	if (!f)
		return;
	if (f.d === 0)
		unzoom();
	else
		zoom(f);
	save();
});
unzoomBtn.addEventListener('click', function () { unzoom(); save(); });
searchBtn.addEventListener('click', function () {
	if (term === null) {
		ask();
	} else {
		clearSearch();
		save();
	}
});
icBtn.addEventListener('click', toggleCase);
window.addEventListener('keydown', function (e) {
	var k = e.key, mod = e.ctrlKey || e.metaKey;
	if (k === 'F3' || (mod && (k === 'f' || k === 'F'))) {
		e.preventDefault();
		ask();
	} else if (mod && (k === 'i' || k === 'I')) {
		e.preventDefault();
		toggleCase();
	} else if (k === 'Escape' && term !== null) {
		clearSearch();
		save();
	}
});
window.addEventListener('hashchange', restore);
restore();
svg.setAttribute('data-ready', '1');
})();
