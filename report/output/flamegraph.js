// flamegraph.js: the flame graph's script, in two documents.
//
// In every SVG flame graph (report/output/flamegraph.c), whose root is the
// svg: hover shows a frame's details, a click zooms into a frame, Ctrl-F
// or F3 searches the names with a regular expression and shows the
// matched share, and the zoom and the search are kept in the URL's
// fragment.
//
// In an HTML page (report/output/html.h), it sets up nothing itself and
// defines one global function for the page's script to call:
//
//   profFlameGraph(svg)        the same behaviour, on an svg written into
//                              the page as flamegraph.c writes it (with
//                              its own buttons and status line)
//   profFlameGraph(svg, host)  hover, zoom and search only, on an svg with
//                              a <g id="frames"> and flamegraph.c's data-*
//                              attributes, for a host that draws the
//                              frames and keeps the state itself. host is
//                              { details: an element whose text becomes
//                              the hovered frame's details, unzoom: an
//                              element shown (class "hide" off) while
//                              zoomed, which unzooms when clicked,
//                              changed: called after a click has zoomed
//                              or unzoomed }. It returns { draw(frames,
//                              height), zoom(d, x), zoomed(), mark(re) }:
//                              see below.
//
// It reads everything from the document, the svg's data-* attributes and
// each frame's attributes and <title>, never from text spliced into it, so
// no byte of a profile is ever inside the script. make embeds this file as
// a C string (mk/js.mk), without the lines that start with "//", such as
// these, and refuses it if it holds "]]>", which would end the CDATA
// section around it; tests/e2e/test_svg.sh lints it with ESLint.
(function () {
'use strict';
var NS = 'http://www.w3.org/2000/svg', MATCH = 'rgb(230,0,230)';

/* The frames of svg, as flamegraph.c draws them: hover, zoom and search. */
function flameGraph(svg, host) {
	var W = +svg.getAttribute('width'), PAD = +svg.getAttribute('data-pad');
	var FW = +svg.getAttribute('data-fw'), TY = +svg.getAttribute('data-ty');
	var box = svg.querySelector('#frames'), unzoomBtn = host.unzoom;
	var frames = [], byKey = new Map(), total = 0, zoomed = null;

	/* Adds f, a frame's record: its group g, rect r and label t (or
	 * null); d, x and s as in its data-* attributes; its name, its info
	 * (its details on one line), merged, and its fill, rx, rw, tx and
	 * label as drawn unzoomed. */
	function add(f) {
		f.g.fgIndex = frames.length;
		frames.push(f);
		byKey.set(f.d + ':' + f.x, f);
		if (f.d === 0)
			total = f.s;
	}

	function clear() {
		frames = [];
		byKey = new Map();
		total = 0;
	}

	/* The frames flamegraph.c wrote. Each title is 'NAME (N samples,
	 * P%)', then a line per detail; a name never holds a newline (the
	 * writer escapes control bytes). */
	function read() {
		clear();
		for (var i = 0; i < box.children.length; i++) {
			var g = box.children[i], ti = g.getElementsByTagName('title')[0];
			var r = g.getElementsByTagName('rect')[0], t = g.getElementsByTagName('text')[0] || null;
			var text = ti ? ti.textContent : '', nl = text.indexOf('\n');
			var head = nl < 0 ? text : text.slice(0, nl), k = head.lastIndexOf(' (');
			add({
				g: g, r: r, t: t, d: +g.getAttribute('data-d'), x: +g.getAttribute('data-x'),
				s: +g.getAttribute('data-s'), name: k < 0 ? head : head.slice(0, k),
				info: text.split('\n').join('; '), merged: g.classList.contains('m'),
				fill: r.getAttribute('fill'), rx: r.getAttribute('x'), rw: r.getAttribute('width'),
				tx: t ? t.getAttribute('x') : null, label: t ? t.textContent : ''
			});
		}
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

	/* Draws f from x, w pixels wide. */
	function place(f, x, w) {
		f.r.setAttribute('x', x.toFixed(2));
		f.r.setAttribute('width', w.toFixed(2));
		label(f, x, w);
	}

	/* Zooming into z draws its subtree across the whole width, keeps its
	 * ancestors at full width (dimmed) and hides everything else. A frame
	 * at z's depth or deeper lies within z's samples only if it is z or
	 * under it, since the frames of a row never overlap. */
	function zoom(z) {
		var scale = (W - 2 * PAD) / z.s, end = z.x + z.s;
		zoomed = z;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (f.d >= z.d && f.x >= z.x && f.x + f.s <= end) {
				f.g.classList.remove('hide', 'p');
				place(f, PAD + (f.x - z.x) * scale, f.s * scale);
			} else if (f.d < z.d && f.x <= z.x && f.x + f.s >= end) {
				f.g.classList.remove('hide');
				f.g.classList.add('p');
				place(f, PAD, W - 2 * PAD);
			} else {
				f.g.classList.add('hide');
			}
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

	/* Highlights the frames whose name re matches (none if re is null)
	 * and returns the share of the samples under them. Matched counts
	 * each sample once: the matches' sample ranges are nested or
	 * disjoint, so their union is what is summed. */
	function mark(re) {
		var hits = [], sum = 0, end = 0;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i], hit = re !== null && !f.merged && re.test(f.name);
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
		return total ? sum / total : 0;
	}

	/* Replaces the frames with list, each { d, x, s (as the data-*
	 * attributes of flamegraph.c's frames), y, name, title, fill, merged },
	 * drawn unzoomed and height pixels high; list[0] is the base, at
	 * depth 0. A frame has its name in data-name, and neither a <title>,
	 * whose text the host's details line shows on a hover, nor the other
	 * data-* attributes, which its record holds: on a page of 16,000
	 * frames the titles were a fifth of the first draw, the attributes a
	 * tenth. */
	function draw(list, height) {
		W = +svg.getAttribute('width');
		clear();
		zoomed = null;
		unzoomBtn.classList.add('hide');
		while (box.firstChild)
			box.removeChild(box.firstChild);
		var scale = list.length && list[0].s ? (W - 2 * PAD) / list[0].s : 0;
		var all = document.createDocumentFragment();
		for (var i = 0; i < list.length; i++) {
			var it = list[i], f = {
				g: document.createElementNS(NS, 'g'), r: document.createElementNS(NS, 'rect'),
				t: null, d: it.d, x: it.x, s: it.s, name: it.name,
				info: it.title.split('\n').join('; '), merged: it.merged, fill: it.fill
			};
			var x0 = PAD + it.x * scale, w0 = it.d ? it.s * scale : W - 2 * PAD;
			f.g.setAttribute('class', it.merged ? 'f m' : 'f');
			f.g.setAttribute('data-name', it.name);
			f.r.setAttribute('y', it.y.toFixed(1));
			f.r.setAttribute('height', height);
			f.r.setAttribute('fill', it.fill);
			f.g.appendChild(f.r);
			place(f, x0, w0);
			f.rx = x0.toFixed(2);
			f.rw = w0.toFixed(2);
			f.tx = f.t ? (x0 + 3).toFixed(2) : null;
			f.label = f.t ? f.t.textContent : '';
			all.appendChild(f.g);
			add(f);
		}
		box.appendChild(all);
	}

	box.addEventListener('mouseover', function (e) {
		var f = frameOf(e);
		if (f)
			host.details.textContent = f.info;
	});
	box.addEventListener('mouseout', function () { host.details.textContent = ' '; });
	box.addEventListener('click', function (e) {
		var f = frameOf(e);
		if (!f)
			return;
		if (f.d === 0)
			unzoom();
		else
			zoom(f);
		host.changed();
	});
	unzoomBtn.addEventListener('click', function () { unzoom(); host.changed(); });
	read();
	return {
		draw: draw,
		/* Zooms into the frame at depth d from sample x, or unzooms if
		 * there is none or it is the base. */
		zoom: function (d, x) {
			var z = byKey.get(d + ':' + x);
			if (z && z.d > 0)
				zoom(z);
			else if (zoomed)
				unzoom();
		},
		/* The zoomed frame, { d, x, ... }, or null. */
		zoomed: function () { return zoomed; },
		mark: mark
	};
}

/* The graph of svg with flamegraph.c's own controls: the status line,
 * the Search, ic and Reset Zoom buttons, the keys, and the state in the
 * URL's fragment. */
function controls(svg) {
	function $(id) { return svg.querySelector('#' + id); }
	var matched = $('matched'), searchBtn = $('search'), icBtn = $('ignorecase');
	var term = null, ignorecase = false;
	var graph = flameGraph(svg, { details: $('details'), unzoom: $('unzoom'), changed: save });

	function search(src) {
		var re;
		try {
			re = new RegExp(src, ignorecase ? 'i' : '');
		} catch (e) {
			clearSearch();
			matched.textContent = 'Bad regular expression';
			return;
		}
		term = src;
		matched.textContent = 'Matched: ' + (100 * graph.mark(re)).toFixed(1) + '%';
		searchBtn.textContent = 'Reset Search';
	}

	function clearSearch() {
		term = null;
		graph.mark(null);
		matched.textContent = ' ';
		searchBtn.textContent = 'Search';
	}

	/* The state lives in the fragment: d and x name the zoomed frame
	 * (its depth and first sample), s is the search, i=1 ignores case. */
	function save() {
		var p = [], z = graph.zoomed();
		if (z)
			p.push('d=' + z.d, 'x=' + z.x);
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
		graph.zoom(q.get('d'), q.get('x'));
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
}

if (document.documentElement.namespaceURI === NS)
	controls(document.documentElement);
else
	window.profFlameGraph = function (svg, host) { return host ? flameGraph(svg, host) : controls(svg); };
})();
