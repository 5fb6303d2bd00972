// html.js: the script of prof-report's HTML page (report/output/html.h).
//
// A profile page ("profile" in body's data-kind) is drawn here from the
// JSON in #prof-data: a timeline with a track per thread, a range and a
// set of threads selected on it, and four views of the selected samples,
// the flame graph, the icicle, the call tree top-down and bottom-up, over
// a table of functions. The flame graph is laid out here as flamegraph.c
// lays it out (children in bytewise name order, frames narrower than
// MIN_WIDTH merged or dropped) and drawn, zoomed and searched by the
// shared report/output/flamegraph.js, which defines profFlameGraph.
// A diff page ("diff") holds its graph and change table already: the
// graph gets flamegraph.js's own controls and the table sorts.
//
// Names are data and go into the document only as text and attribute
// values, never as markup. The page is built to stay quick on a million
// samples and 200,000 nodes: samples are summed with typed arrays, the
// flame graph's merging bounds its frames, the call tree draws only its
// open rows and the table its first TABLE_ROWS until asked for all.
//
// The state is kept in the URL's fragment, so a link reopens a view and
// the browser's back and forward step through selections and zooms:
//   t=0.2    the selected threads (indices into data.threads); none: all
//   h=1.3    the hidden tracks
//   o=2.0.1  the tracks' order
//   r=40-90  the selected range, in bins [from, to); none: the whole run
//   z=30-100 the timeline's zoom, in bins; none: the whole run
//   v=f      the view: f flame graph, i icicle, t top-down, b bottom-up
//   s=RE     the search, a regular expression; i=1 ignores its case
//   f=12     the focused function (an index into data.funcs)
//   d=3&x=40 the flame graph's zoomed frame: its depth and first sample
//
// make embeds this file without the lines that start with "//", such as
// these; ESLint checks it by the rules of mk/eslint.config.mjs.
(function () {
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
const NAME_CUT = 200;      /* characters of a name shown before '...' */
const TABLE_ROWS = 200;    /* the functions listed before "show all" */
const TREE_CHILDREN = 100; /* a tree row's children shown before "more" */
const TRACK_HEIGHT = 34, LABEL_WIDTH = 230;
const PAD = 10, FRAME_HEIGHT = 16, FONT_WIDTH = 12 * 0.59, TEXT_DY = 11.5, MIN_WIDTH = 0.1;
const MERGED_FILL = '#c8c8c8';
/* The states of a bin, in the data's order, as drawn bottom up; waiting
 * is drawn at a quarter of its height, so activity stands out. */
const STATES = [
	{ name: 'running', fill: '#3a9a48', scale: 1 },
	{ name: 'kernel', fill: '#d9752b', scale: 1 },
	{ name: 'preempted', fill: '#c9a227', scale: 1 },
	{ name: 'waiting', fill: '#a9bdd8', scale: 0.25 },
];

/* An element, with a class and text if given. */
function el(tag, cls, text) {
	const e = document.createElement(tag);
	if (cls)
		e.className = cls;
	if (text !== undefined)
		e.textContent = text;
	return e;
}

function button(text, title, onclick) {
	const b = el('button', '', text);
	b.type = 'button';
	if (title)
		b.title = title;
	b.addEventListener('click', onclick);
	return b;
}

/* A name as text, cut to NAME_CUT characters; the whole name is then its
 * title. */
function nameText(e, name) {
	if (name.length > NAME_CUT) {
		e.textContent = name.slice(0, NAME_CUT) + '...';
		e.title = name;
	} else {
		e.textContent = name;
	}
	return e;
}

function count(n) {
	return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function share(n, of) {
	return (of ? 100 * n / of : 0).toFixed(2) + '%';
}

function duration(ns) {
	if (ns >= 1e9)
		return (ns / 1e9).toFixed(3) + ' s';
	if (ns >= 1e6)
		return (ns / 1e6).toFixed(1) + ' ms';
	return (ns / 1e3).toFixed(0) + ' \u00b5s';
}

/* The first index k of an array of records stride numbers long, sorted by
 * their first number, whose record starts with at least bin. */
/* Entries of stride numbers each, the first of each a bin written as the
 * difference from the entry before's (the first's from 0), as numbers
 * with their bins whole: fewer digits in the page, the same here. */
function absoluteBins(a, stride) {
	const out = new Float64Array(a.length);
	let bin = 0;
	for (let k = 0; k < a.length; k += stride) {
		bin += a[k];
		out[k] = bin;
		for (let j = 1; j < stride; j++)
			out[k + j] = a[k + j];
	}
	return out;
}

function lowerBound(a, stride, bin) {
	let lo = 0, hi = a.length / stride;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (a[mid * stride] < bin)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo * stride;
}

/* Strings in the order of their UTF-8 bytes, which is that of their code
 * points: UTF-16 units order the same except surrogates, which stand for
 * code points above every other unit's. */
function byteOrder(a, b) {
	const n = Math.min(a.length, b.length);
	for (let i = 0; i < n; i++) {
		let x = a.charCodeAt(i), y = b.charCodeAt(i);
		if (x !== y) {
			if (x >= 0xd800 && x < 0xe000)
				x += 0x10000;
			if (y >= 0xd800 && y < 0xe000)
				y += 0x10000;
			return x - y;
		}
	}
	return a.length - b.length;
}

/* The fragment's keys and values. */
function parseHash(hash) {
	const q = new Map();
	for (const part of hash.replace(/^#/, '').split('&')) {
		const k = part.indexOf('=');
		if (k > 0) {
			try {
				q.set(part.slice(0, k), decodeURIComponent(part.slice(k + 1)));
			} catch (e) {
				/* a malformed escape is ignored */
			}
		}
	}
	return q;
}

function ready() {
	document.body.dataset.ready = '1';
	performance.mark('prof-first-draw');
}

/* A table whose rows sort by a column when its header is clicked, by
 * number if every cell of the column reads as one (a td's data-v first,
 * else its text, without separators and a leading '<' or '>'). */
function sortable(table) {
	const value = (td) => {
		const s = td.dataset.v !== undefined ? td.dataset.v : td.textContent;
		return { s: s, n: s.trim() === '' ? NaN : parseFloat(s.replace(/,/g, '').replace(/^\s*[<>]/, '')) };
	};
	const heads = table.querySelectorAll('thead th, tr:first-child th');
	heads.forEach((th, col) => {
		th.classList.add('sorts');
		th.addEventListener('click', () => {
			const body = table.tBodies[0], rows = Array.from(body.rows).filter((r) => r.cells.length > col);
			const down = th.dataset.dir !== 'down';
			const vals = new Map(rows.map((r) => [r, value(r.cells[col])]));
			const numeric = rows.every((r) => !isNaN(vals.get(r).n));
			rows.sort((a, b) => {
				const x = vals.get(a), y = vals.get(b);
				const c = numeric ? y.n - x.n : byteOrder(x.s, y.s);
				return down === numeric ? c : -c;
			});
			heads.forEach((h) => delete h.dataset.dir);
			th.dataset.dir = down ? 'down' : 'up';
			for (const r of rows)
				body.appendChild(r);
		});
	});
}

/* A diff page: its graph as the SVG has it, and its table sortable. */
function diffPage() {
	const svg = document.querySelector('#diff svg');
	const table = document.getElementById('changes');
	if (svg)
		window.profFlameGraph(svg);
	if (table)
		sortable(table);
	ready();
}

/* The data's tree, with what every selection uses: each node's depth, a
 * parents-first order, the children in bytewise name order, and which
 * nodes repeat a function of their callers. */
function readTree(data) {
	const n = data.nodes.length / 2, nfuncs = data.funcs.length;
	const parent = new Int32Array(n), func = new Int32Array(n), depth = new Int32Array(n).fill(-1);
	for (let i = 0; i < n; i++) {
		parent[i] = data.nodes[2 * i];
		func[i] = data.nodes[2 * i + 1];
	}
	depth[0] = 0;
	let maxDepth = 0;
	const path = [];
	for (let i = 0; i < n; i++) {
		let k = i;
		while (depth[k] < 0) {
			path.push(k);
			k = parent[k];
		}
		while (path.length) {
			const m = path.pop();
			depth[m] = depth[parent[m]] + 1;
			maxDepth = Math.max(maxDepth, depth[m]);
		}
	}
	/* parents first: by depth */
	const order = new Int32Array(n), at = new Int32Array(maxDepth + 2);
	for (let i = 0; i < n; i++)
		at[depth[i] + 1]++;
	for (let d = 1; d <= maxDepth + 1; d++)
		at[d] += at[d - 1];
	for (let i = 0; i < n; i++)
		order[at[depth[i]]++] = i;

	/* each function's place in the names' order; without surrogates,
	 * the engine's own sort is in the bytes' order */
	const names = data.funcs.map((f) => f.name), rank = new Int32Array(nfuncs), rankOf = new Map();
	const sorted = names.some((s) => /[\ud800-\udfff]/.test(s)) ? names.slice().sort(byteOrder) : names.slice().sort();
	sorted.forEach((s, r) => rankOf.set(s, r));
	names.forEach((s, f) => { rank[f] = rankOf.get(s); });
	/* the children of each node: every node taken in its function's
	 * order (a counting sort) and put after its parent's earlier ones */
	const byRank = new Int32Array(nfuncs + 1), ranked = new Int32Array(Math.max(n - 1, 0));
	for (let i = 1; i < n; i++)
		byRank[rank[func[i]] + 1]++;
	for (let r = 0; r < nfuncs; r++)
		byRank[r + 1] += byRank[r];
	for (let i = 1; i < n; i++)
		ranked[byRank[rank[func[i]]]++] = i;
	const first = new Int32Array(n + 1), kids = new Int32Array(Math.max(n - 1, 0)), fill = new Int32Array(n);
	for (let i = 1; i < n; i++)
		first[parent[i] + 1]++;
	for (let i = 0; i < n; i++)
		first[i + 1] += first[i];
	for (let k = 0; k < n - 1; k++) {
		const i = ranked[k];
		kids[first[parent[i]] + fill[parent[i]]++] = i;
	}

	/* repeated[i]: a caller of node i is in its function already, so a
	 * function's total counts node i's samples once, at the outermost.
	 * The base and the processes' nodes are no function's. */
	const repeated = new Uint8Array(n), onPath = new Int32Array(nfuncs);
	const stack = new Int32Array(maxDepth + 1), next = first.slice(0, n);
	let sp = 0;
	while (sp >= 0) {
		const m = stack[sp];
		if (next[m] < first[m + 1]) {
			const c = kids[next[m]++];
			if (depth[c] >= 2)
				repeated[c] = onPath[func[c]]++ > 0;
			stack[++sp] = c;
		} else {
			if (depth[m] >= 2)
				onPath[func[m]]--;
			sp--;
		}
	}
	return { n, parent, func, depth, maxDepth, order, first, kids, repeated, rank };
}

/* The samples of the selected threads within bins [from, to): each
 * node's self and total, each function's self and total. */
function selectSamples(data, tree, threads, from, to) {
	const self = new Float64Array(tree.n), total = new Float64Array(tree.n);
	const fself = new Float64Array(data.funcs.length), ftotal = new Float64Array(data.funcs.length);
	for (const t of threads) {
		const s = data.threads[t].stacks;
		for (let k = lowerBound(s, 3, from); k < s.length && s[k] < to; k += 3)
			self[s[k + 1]] += s[k + 2];
	}
	total.set(self);
	for (let k = tree.n - 1; k > 0; k--) {
		const i = tree.order[k];
		total[tree.parent[i]] += total[i];
	}
	for (let i = 0; i < tree.n; i++) {
		if (total[i] && tree.depth[i] >= 2) {
			fself[tree.func[i]] += self[i];
			if (!tree.repeated[i])
				ftotal[tree.func[i]] += total[i];
		}
	}
	return { self, total, fself, ftotal, samples: total[0] };
}

/* The frames of the flame graph of sel, width pixels wide, as
 * flamegraph.c's walk draws them: depth first, parents before children,
 * left to right; a run of adjacent children each narrower than
 * MIN_WIDTH is one merged frame if the run is that wide, else none. */
function flameFrames(data, tree, sel, width) {
	const scale = sel.samples ? (width - 2 * PAD) / sel.samples : 0, x = new Float64Array(tree.n);
	const list = [], stack = [0];
	const frame = (func, d, at, s, name) => ({
		func: func, d: d, x: at, s: s, name: name, merged: func < 0,
		fill: func < 0 ? MERGED_FILL : data.funcs[func].fill,
		title: name + ' (' + count(s) + (s === 1 ? ' sample, ' : ' samples, ') + share(s, sel.samples) + ')',
	});
	if (!sel.samples)
		return list;
	while (stack.length) {
		const i = stack.pop(), d = tree.depth[i], shown = [];
		let at = x[i], run = 0, runX = 0, runS = 0;
		list.push(frame(tree.func[i], d, x[i], sel.total[i], data.funcs[tree.func[i]].name));
		for (let k = tree.first[i]; k <= tree.first[i + 1]; k++) {
			const c = k < tree.first[i + 1] ? tree.kids[k] : -1;
			if (c >= 0) {
				if (!sel.total[c])
					continue;
				x[c] = at;
				at += sel.total[c];
				if (sel.total[c] * scale < MIN_WIDTH) {
					if (!run++)
						runX = x[c];
					runS += sel.total[c];
					continue;
				}
			}
			if (run && runS * scale >= MIN_WIDTH)
				list.push(frame(-1, d + 1, runX, runS, '[' + run + ' frames merged]'));
			run = runS = 0;
			if (c >= 0)
				shown.push(c);
		}
		for (let k = shown.length - 1; k >= 0; k--)
			stack.push(shown[k]);
	}
	return list;
}

/* The call tree's rows, made when first opened. Top down, a row is a
 * node; bottom up, a row is a function reached from leaves up through
 * callers, and holds the nodes it stands for (ents) and the leaves'
 * samples through each (w): its self is their sum, its total the
 * function's. */
function topDownRoots(tree, sel) {
	const row = (i) => ({
		key: 'n' + i, func: tree.func[i], self: sel.self[i], total: sel.total[i],
		children: () => Array.from(tree.kids.subarray(tree.first[i], tree.first[i + 1]))
			.filter((c) => sel.total[c]).sort((a, b) => sel.total[b] - sel.total[a]).map(row),
	});
	return sel.samples ? [row(0)] : [];
}

function bottomUpRoots(tree, sel) {
	/* the rows of the functions of nodes ents, grouped */
	const rows = (key, ents, w) => {
		const by = new Map();
		ents.forEach((i, k) => {
			const f = tree.func[i];
			if (!by.has(f))
				by.set(f, { ents: [], w: [] });
			by.get(f).ents.push(i);
			by.get(f).w.push(w[k]);
		});
		return Array.from(by, ([f, g]) => {
			const self = g.w.reduce((a, b) => a + b, 0), k2 = key + '.' + f;
			return {
				key: k2, func: f, self: self, total: sel.ftotal[f] || self,
				children: () => {
					const up = [], uw = [];
					g.ents.forEach((i, k) => {
						if (tree.depth[i] > 1) {
							up.push(tree.parent[i]);
							uw.push(g.w[k]);
						}
					});
					return rows(k2, up, uw);
				},
			};
		}).sort((a, b) => b.self - a.self);
	};
	const leaves = [], w = [];
	for (let i = 1; i < tree.n; i++) {
		if (sel.self[i]) {
			leaves.push(i);
			w.push(sel.self[i]);
		}
	}
	return rows('b', leaves, w);
}

function profilePage() {
	const data = JSON.parse(document.getElementById('prof-data').textContent);
	for (const t of data.threads) {
		t.stacks = absoluteBins(t.stacks, 3);
		t.states = absoluteBins(t.states, 5);
	}
	const tree = readTree(data), nthreads = data.threads.length, nbins = Math.max(data.nbins, 1);
	const binNs = data.bin_ns, funcs = data.funcs;
	const pids = new Set(data.threads.map((t) => t.pid));
	/* a bin's samples at the full height of a track: one thread sampled
	 * at the rate, or the busiest bin if the rate is unknown */
	let unit = data.rate_hz * binNs / 1e9;
	if (!(unit > 0)) {
		unit = 1;
		for (const t of data.threads)
			for (let k = 0; k < t.states.length; k += 5)
				unit = Math.max(unit, t.states[k + 1] + t.states[k + 2] + t.states[k + 3] + t.states[k + 4]);
	}

	/* The state, as in the fragment (see the top of this file). */
	const defaults = () => ({
		sel: null, hidden: [], order: data.threads.map((t, i) => i), range: null, zoom: null,
		view: 'f', search: '', ic: false, focus: -1, fz: null,
	});
	let state = defaults();
	const ints = (s) => (s ? s.split('.').map(Number).filter((i) => Number.isInteger(i) && i >= 0 && i < nthreads) : []);
	const span = (s) => {
		const m = /^(\d+)-(\d+)$/.exec(s || '');
		const a = m ? Math.min(+m[1], nbins - 1) : 0, b = m ? Math.min(+m[2], nbins) : 0;
		return m && a < b ? [a, b] : null;
	};
	function decode(hash) {
		const q = parseHash(hash), s = defaults();
		const sel = ints(q.get('t'));
		s.sel = sel.length ? Array.from(new Set(sel)).sort((a, b) => a - b) : null;
		s.hidden = Array.from(new Set(ints(q.get('h'))));
		const order = Array.from(new Set(ints(q.get('o'))));
		s.order = order.concat(s.order.filter((i) => !order.includes(i)));
		s.range = span(q.get('r'));
		s.zoom = span(q.get('z'));
		s.view = /^[fitb]$/.test(q.get('v') || '') ? q.get('v') : 'f';
		s.search = q.get('s') || '';
		s.ic = q.get('i') === '1';
		const f = +q.get('f');
		s.focus = q.has('f') && Number.isInteger(f) && f > 0 && f < funcs.length ? f : -1;
		s.fz = q.has('d') && q.has('x') ? [q.get('d'), q.get('x')] : null;
		return s;
	}
	function encode(s) {
		const p = [];
		if (s.sel)
			p.push('t=' + s.sel.join('.'));
		if (s.hidden.length)
			p.push('h=' + s.hidden.join('.'));
		if (s.order.some((t, i) => t !== i))
			p.push('o=' + s.order.join('.'));
		if (s.range)
			p.push('r=' + s.range.join('-'));
		if (s.zoom)
			p.push('z=' + s.zoom.join('-'));
		if (s.view !== 'f')
			p.push('v=' + s.view);
		if (s.search)
			p.push('s=' + encodeURIComponent(s.search));
		if (s.ic)
			p.push('i=1');
		if (s.focus >= 0)
			p.push('f=' + s.focus);
		if (s.fz)
			p.push('d=' + s.fz[0], 'x=' + s.fz[1]);
		return p.join('&');
	}
	/* Changes the state, a step in the browser's history if push. A
	 * zoomed frame is one of the selection's graph: a new selection
	 * unzooms. */
	function commit(changes, push) {
		const next = Object.assign({}, state, changes);
		if (('sel' in changes || 'range' in changes) && !('fz' in changes))
			next.fz = null;
		const h = encode(next);
		try {
			history[push ? 'pushState' : 'replaceState'](null, '', location.href.replace(/#.*$/, '') + (h ? '#' + h : ''));
		} catch (e) {
			/* a page that cannot change its URL still works */
		}
		state = next;
		render();
	}
	function restore() {
		const next = decode(location.hash);
		if (encode(next) !== encode(state)) {
			state = next;
			render();
		}
	}

	/* The page's elements. */
	const main = el('main');
	document.body.insertBefore(main, document.body.firstChild);
	const head = el('header');
	head.append(el('h1', '', data.title), el('p', 'subtitle', data.subtitle));
	if (data.merged)
		head.append(el('p', 'note', count(data.merged) + " stacks' rarest frames are merged into [merged] frames, to keep the page small."));
	main.append(head);

	/* The timeline */
	const timeline = el('section', 'timeline'), bar = el('div', 'bar');
	const selInfo = el('span', 'sel-info'), legend = el('span', 'legend');
	for (const s of STATES) {
		const sw = el('span', 'swatch');
		sw.style.background = s.fill;
		legend.append(sw, el('span', '', s.name + (s.scale < 1 ? ' (\u00bc height)' : '')));
	}
	bar.append(
		button('All threads', 'Select every thread', () => commit({ sel: null }, true)),
		button('Zoom to selection', 'Zoom the timeline into the selected range',
		       () => state.range && commit({ zoom: state.range }, true)),
		button('Reset', 'The whole run, no range selected', () => commit({ zoom: null, range: null }, true)),
		selInfo, legend);
	const hiddenBar = el('div', 'hidden-bar'), grid = el('div', 'grid');
	const axisRow = el('div', 'row axis'), marksRow = el('div', 'row marks'), tracks = el('div', 'tracks');
	const axis = el('div', 'lane'), marks = el('div', 'lane'), selBox = el('div', 'selbox hide');
	axisRow.append(el('div', 'label', 'time'), axis);
	marksRow.append(el('div', 'label', 'marks, images'), marks);
	grid.append(axisRow, marksRow, tracks, selBox);
	timeline.append(bar, hiddenBar, grid);
	main.append(timeline);

	/* The views */
	const views = el('section', 'views'), tabs = el('div', 'bar tabs');
	const VIEWS = [['f', 'Flame graph'], ['i', 'Icicle'], ['t', 'Call tree'], ['b', 'Bottom-up']];
	const tabFor = new Map();
	for (const [v, text] of VIEWS) {
		const b = button(text, '', () => commit({ view: v }, true));
		b.setAttribute('role', 'tab');
		tabFor.set(v, b);
		tabs.append(b);
	}
	const searchBox = el('input'), icBox = el('input'), icLabel = el('label', 'ic'), matched = el('span', 'matched');
	searchBox.type = 'search';
	searchBox.id = 'search-box';
	searchBox.placeholder = 'Search: a regular expression';
	searchBox.setAttribute('aria-label', 'Search function names (a regular expression)');
	icBox.type = 'checkbox';
	icLabel.append(icBox, ' ignore case');
	searchBox.addEventListener('input', () => commit({ search: searchBox.value }, false));
	icBox.addEventListener('change', () => commit({ ic: icBox.checked }, false));
	tabs.append(searchBox, icLabel, matched);

	const flameView = el('div', 'flame-view'), fgBar = el('div', 'fg-bar');
	const unzoomBtn = el('button', 'hide', 'Reset zoom'), details = el('span', 'details', ' ');
	unzoomBtn.type = 'button';
	fgBar.append(unzoomBtn, details);
	const svg = document.createElementNS(SVG_NS, 'svg');
	svg.setAttribute('class', 'flamegraph');
	svg.setAttribute('data-pad', PAD);
	svg.setAttribute('data-fw', FONT_WIDTH.toFixed(2));
	svg.setAttribute('data-ty', TEXT_DY);
	const frameBox = document.createElementNS(SVG_NS, 'g');
	frameBox.id = 'frames';
	svg.append(frameBox);
	flameView.append(fgBar, svg);
	const treeView = el('div', 'tree-view'), treeHead = el('div', 'trow thead'), treeRows = el('div', 'trows');
	treeView.setAttribute('role', 'tree');
	for (const h of ['Self', 'Self %', 'Total', 'Total %', 'Function'])
		treeHead.append(el('span', h === 'Function' ? 'name' : 'num', h));
	treeView.append(treeHead, treeRows);
	views.append(tabs, flameView, treeView);
	main.append(views);

	/* The function table */
	const tableSec = el('section', 'functions'), table = el('table', 'funcs');
	const thead = el('thead'), headRow = el('tr'), tbody = el('tbody'), moreBtn = el('button', 'more');
	const COLUMNS = [['name', 'Function'], ['image', 'Image'], ['self', 'Self'], ['selfp', 'Self %'],
			 ['total', 'Total'], ['totalp', 'Total %']];
	let sortKey = 'self', sortDown = true, showAll = false;
	for (const [key, text] of COLUMNS) {
		const th = el('th', 'sorts', text);
		th.dataset.key = key;
		th.addEventListener('click', () => {
			const k = key.replace(/p$/, '');
			sortDown = k === sortKey ? !sortDown : k !== 'name' && k !== 'image';
			sortKey = k;
			renderTable();
		});
		headRow.append(th);
	}
	thead.append(headRow);
	table.append(thead, tbody);
	moreBtn.type = 'button';
	moreBtn.addEventListener('click', () => { showAll = true; renderTable(); });
	tableSec.append(el('h2', '', 'Functions'), table, moreBtn);
	main.append(tableSec);

	/* What the state selects, and what is drawn of it. */
	let sel = null, selKey = null, frames = [], flameKey = null, re = null, reKey = null;
	let nodeMatch = new Uint8Array(tree.n), funcMatch = new Uint8Array(funcs.length);
	let roots = [], open = new Set();
	const graph = window.profFlameGraph(svg, {
		details: details, unzoom: unzoomBtn,
		changed: () => {
			const z = graph.zoomed();
			commit({ fz: z ? [String(z.d), String(z.x)] : null }, true);
		},
	});

	const selThreads = () => state.sel || data.threads.map((t, i) => i);
	const view = () => state.zoom || [0, nbins];

	/* The timeline: an axis, the marks and images, a track per thread. */
	function laneWidth() {
		return Math.max(grid.clientWidth - LABEL_WIDTH, 50);
	}
	function renderAxis(w) {
		const [z0, z1] = view(), ns = (z1 - z0) * binNs;
		let step = Math.pow(10, Math.floor(Math.log10(ns / 8 || 1)));
		for (const m of [2, 5, 10])
			if (ns / step > 10)
				step = Math.pow(10, Math.floor(Math.log10(ns / 8 || 1))) * m;
		axis.textContent = '';
		for (let t = Math.ceil(z0 * binNs / step) * step; t <= z1 * binNs; t += step) {
			const tick = el('span', 'tick', t ? duration(t) : '0');
			tick.style.left = ((t / binNs - z0) / (z1 - z0) * w) + 'px';
			axis.append(tick);
		}
		marks.textContent = '';
		const at = (ns2) => (ns2 / binNs - z0) / (z1 - z0) * w;
		for (const m of data.marks) {
			const x = at(m.time_ns);
			if (x < 0 || x > w)
				continue;
			const e = el('span', 'mark');
			nameText(e, m.name);
			e.title = m.name + ' (' + m.source + ', at ' + duration(m.time_ns) + ')';
			e.style.left = x + 'px';
			marks.append(e);
		}
		for (const im of data.images) {
			const x = at(im.time_ns);
			if (x < 0 || x > w)
				continue;
			const e = el('span', 'load');
			e.title = im.path;
			e.style.left = x + 'px';
			marks.append(e);
		}
	}

	/* The bars of one bin, or of the bins in one pixel: the states'
	 * samples v (per bin) stacked from the bottom of a track. */
	function drawBins(ctx, x, w, v, h) {
		let y = h;
		for (let s = 0; s < STATES.length; s++) {
			const hh = Math.min(y, v[s] / unit * STATES[s].scale * (h - 2));
			if (hh > 0) {
				ctx.fillStyle = STATES[s].fill;
				ctx.fillRect(x, y - hh, w, hh);
				y -= hh;
			}
		}
	}
	function drawTrack(canvas, t, w) {
		const [z0, z1] = view(), h = TRACK_HEIGHT, dpr = window.devicePixelRatio || 1;
		const px = (bin) => (bin - z0) / (z1 - z0) * w;
		canvas.width = Math.round(w * dpr);
		canvas.height = Math.round(h * dpr);
		canvas.style.width = w + 'px';
		const ctx = canvas.getContext('2d');
		ctx.scale(dpr, dpr);
		ctx.fillStyle = '#e4e4e0';
		const born = px(t.start_ns / binNs), died = t.end_ns === null ? w : px(t.end_ns / binNs);
		ctx.fillRect(0, 0, Math.max(born, 0), h);
		ctx.fillRect(died, 0, w - died, h);
		ctx.fillStyle = 'rgba(120,120,120,0.25)';
		for (const [a, b] of data.pauses)
			ctx.fillRect(px(a / binNs), 0, px(b / binNs) - px(a / binNs), h);
		/* bins a pixel wide or more are drawn each, narrower ones summed
		 * into their pixel by the share of it they cover */
		const cols = new Float64Array((Math.ceil(w) + 1) * 4), v = [0, 0, 0, 0], st = t.states;
		for (let k = lowerBound(st, 5, z0); k < st.length && st[k] < z1; k += 5) {
			const a = px(st[k]), b = px(st[k] + 1);
			if (b - a >= 1) {
				drawBins(ctx, a, b - a, st.slice(k + 1, k + 5), h);
			} else {
				const c = Math.floor(a) * 4;
				for (let s = 0; s < 4; s++)
					cols[c + s] += st[k + 1 + s] * (b - a);
			}
		}
		for (let c = 0; c < cols.length; c += 4) {
			if (cols[c] + cols[c + 1] + cols[c + 2] + cols[c + 3]) {
				for (let s = 0; s < 4; s++)
					v[s] = cols[c + s];
				drawBins(ctx, c / 4, 1, v, h);
			}
		}
		ctx.fillStyle = '#7a2fa0';
		for (const m of data.marks)
			ctx.fillRect(Math.round(px(m.time_ns / binNs)), 0, 1, h);
	}
	function moveTrack(t, by) {
		const order = state.order.filter((i) => !state.hidden.includes(i));
		const k = order.indexOf(t), to = k + by;
		if (to < 0 || to >= order.length)
			return;
		const other = order[to], o = state.order.slice(), a = o.indexOf(t), b = o.indexOf(other);
		o[a] = other;
		o[b] = t;
		commit({ order: o }, false);
	}
	function pickThread(t, e) {
		if (!(e.ctrlKey || e.metaKey))
			return commit({ sel: [t] }, true);
		const cur = selThreads(), next = cur.includes(t) ? cur.filter((i) => i !== t) : cur.concat([t]);
		commit({ sel: next.length && next.length < nthreads ? next.sort((a, b) => a - b) : null }, true);
	}
	function renderTimeline() {
		const w = laneWidth(), chosen = new Set(selThreads()), hidden = new Set(state.hidden);
		renderAxis(w);
		tracks.textContent = '';
		for (const t of state.order) {
			if (hidden.has(t))
				continue;
			const th = data.threads[t], row = el('div', 'row track' + (chosen.has(t) ? '' : ' off'));
			const label = el('div', 'label'), name = el('button', 'tname'), lane = el('div', 'lane');
			const canvas = el('canvas');
			name.type = 'button';
			nameText(name, th.name);
			name.title = th.name + ', thread ' + th.tid + ' of ' + th.process + ' [' + th.pid + ']: ' +
				count(th.samples) + ' samples. Click: this thread alone; Ctrl-click: add or remove it.';
			name.addEventListener('click', (e) => pickThread(t, e));
			const info = el('span', 'tid', 'tid ' + th.tid);
			if (pids.size > 1)
				info.append(' \u00b7 ', nameText(el('span'), th.process), ' [' + th.pid + ']');
			label.append(name, info,
				     button('\u2191', 'Move up', () => moveTrack(t, -1)),
				     button('\u2193', 'Move down', () => moveTrack(t, 1)),
				     button('\u00d7', 'Hide this track', () => commit({ hidden: state.hidden.concat([t]) }, false)));
			lane.append(canvas);
			row.append(label, lane);
			row.dataset.thread = t;
			tracks.append(row);
			drawTrack(canvas, th, w);
		}
		hiddenBar.textContent = '';
		if (state.hidden.length) {
			hiddenBar.append('Hidden: ');
			for (const t of state.hidden) {
				const b = button('', 'Show this track again',
						 () => commit({ hidden: state.hidden.filter((i) => i !== t) }, false));
				nameText(b, data.threads[t].name);
				b.title = 'Show ' + data.threads[t].name + ' (tid ' + data.threads[t].tid + ') again';
				hiddenBar.append(b);
			}
		}
		showRange(state.range, w);
	}
	function showRange(r, w) {
		const [z0, z1] = view();
		const ns = r ? (r[1] - r[0]) * binNs : nbins * binNs;
		selInfo.textContent = (r ? 'Selected ' + duration(ns) + ' from ' + duration(r[0] * binNs) : 'The whole run, ' + duration(ns)) +
			(state.sel ? ', ' + state.sel.length + ' of ' + nthreads + ' threads' : ', all threads');
		if (!r) {
			selBox.classList.add('hide');
			return;
		}
		const a = Math.max((r[0] - z0) / (z1 - z0) * w, 0), b = Math.min((r[1] - z0) / (z1 - z0) * w, w);
		selBox.classList.toggle('hide', b <= a);
		selBox.style.left = (LABEL_WIDTH + a) + 'px';
		selBox.style.width = (b - a) + 'px';
		selBox.textContent = duration(ns);
	}

	/* Dragging over the lanes selects a range, to the bins it touches;
	 * a click without a drag selects the whole run again. */
	let drag = null;
	const binAt = (e) => {
		const [z0, z1] = view(), box = grid.getBoundingClientRect();
		const x = Math.min(Math.max(e.clientX - box.left - LABEL_WIDTH, 0), laneWidth());
		return z0 + x / laneWidth() * (z1 - z0);
	};
	const dragRange = (e) => {
		const a = Math.min(drag.from, binAt(e)), b = Math.max(drag.from, binAt(e));
		const from = Math.min(Math.floor(a), nbins - 1);
		return [from, Math.max(Math.ceil(b), from + 1)];
	};
	grid.addEventListener('mousedown', (e) => {
		if (e.button !== 0 || !e.target.closest('.lane'))
			return;
		e.preventDefault();
		drag = { from: binAt(e), x: e.clientX };
	});
	window.addEventListener('mousemove', (e) => {
		if (drag)
			showRange(dragRange(e), laneWidth());
	});
	window.addEventListener('mouseup', (e) => {
		if (!drag)
			return;
		const moved = Math.abs(e.clientX - drag.x) >= 3, r = dragRange(e);
		drag = null;
		commit({ range: moved ? r : null }, true);
	});

	/* The flame graph and the icicle. */
	function renderFlame() {
		const w = Math.max(flameView.clientWidth, 300), inverted = state.view === 'i';
		const key = selKey + ' ' + w + ' ' + inverted;
		if (key !== flameKey) {
			flameKey = key;
			frames = flameFrames(data, tree, sel, w);
			const depth = frames.reduce((m, f) => Math.max(m, f.d), 0), height = (depth + 1) * FRAME_HEIGHT + 8;
			for (const f of frames)
				f.y = inverted ? 4 + f.d * FRAME_HEIGHT : height - 4 - (f.d + 1) * FRAME_HEIGHT;
			svg.setAttribute('width', w);
			svg.setAttribute('height', height);
			svg.setAttribute('viewBox', '0 0 ' + w + ' ' + height);
			graph.draw(frames, FRAME_HEIGHT - 1);
		}
		const z = graph.zoomed(), fz = state.fz;
		if (fz ? !z || String(z.d) !== fz[0] || String(z.x) !== fz[1] : z)
			graph.zoom(fz ? fz[0] : null, fz ? fz[1] : null);
		graph.mark(re);
		Array.from(frameBox.children).forEach((g, k) => g.classList.toggle('focus', state.focus >= 0 && frames[k].func === state.focus));
	}

	/* The call tree: its open rows, each node's first TREE_CHILDREN
	 * children and a row for the rest. */
	function renderTree() {
		const list = document.createDocumentFragment();
		const add = (r, d) => {
			const row = el('div', 'trow'), tw = el('button', 'tw'), name = el('span', 'name');
			const kids = r.kids || (r.kids = r.children());
			tw.type = 'button';
			tw.textContent = kids.length ? (open.has(r.key) ? '\u25be' : '\u25b8') : '';
			tw.setAttribute('aria-label', open.has(r.key) ? 'Collapse' : 'Expand');
			tw.disabled = !kids.length;
			tw.addEventListener('click', () => {
				if (!open.delete(r.key))
					open.add(r.key);
				renderTree();
			});
			nameText(name, funcs[r.func].name);
			name.style.paddingLeft = (Math.min(d, 60) * 14) + 'px';
			name.prepend(tw);
			name.addEventListener('click', (e) => {
				if (e.target !== tw)
					focus(r.func);
			});
			row.setAttribute('role', 'treeitem');
			row.classList.toggle('hit', !!funcMatch[r.func] && re !== null);
			row.classList.toggle('focus', r.func === state.focus);
			row.append(el('span', 'num', count(r.self)), el('span', 'num', share(r.self, sel.samples)),
				   el('span', 'num', count(r.total)), el('span', 'num', share(r.total, sel.samples)), name);
			list.append(row);
			if (!open.has(r.key))
				return;
			const limit = r.limit || TREE_CHILDREN;
			kids.slice(0, limit).forEach((c) => add(c, d + 1));
			if (kids.length > limit) {
				const more = el('div', 'trow more'), b = button(count(kids.length - limit) + ' more', 'Show them', () => {
					r.limit = kids.length;
					renderTree();
				});
				b.style.marginLeft = (Math.min(d + 1, 60) * 14) + 'px';
				more.append(b);
				list.append(more);
			}
		};
		roots.forEach((r) => add(r, 0));
		treeRows.textContent = '';
		treeRows.append(list);
	}
	/* The rows of the view's tree, and its hottest path opened. */
	function makeTree() {
		roots = state.view === 'b' ? bottomUpRoots(tree, sel) : topDownRoots(tree, sel);
		open = new Set();
		for (let r = roots[0]; r; ) {
			open.add(r.key);
			r.kids = r.children();
			r = r.kids[0];
		}
	}

	/* The function table: the first TABLE_ROWS, or every row if asked. */
	function renderTable() {
		const rows = [];
		for (let f = 1; f < funcs.length; f++)
			if (sel.ftotal[f] || sel.fself[f])
				rows.push(f);
		const val = { self: sel.fself, total: sel.ftotal }[sortKey], rank = tree.rank;
		const cmp = val ? (a, b) => val[a] - val[b] || rank[b] - rank[a]
			: sortKey === 'name' ? (a, b) => rank[a] - rank[b]
				: (a, b) => byteOrder(funcs[a].image || '', funcs[b].image || '') || rank[a] - rank[b];
		rows.sort(sortDown ? (a, b) => cmp(b, a) : cmp);
		for (const th of headRow.children)
			th.dataset.dir = th.dataset.key === sortKey ? (sortDown ? 'down' : 'up') : '';
		const shown = showAll ? rows : rows.slice(0, TABLE_ROWS), body = document.createDocumentFragment();
		for (const f of shown) {
			const tr = el('tr');
			tr.append(nameText(el('td', 'name'), funcs[f].name), nameText(el('td', 'image'), funcs[f].image || ''),
				  el('td', 'num', count(sel.fself[f])), el('td', 'num', share(sel.fself[f], sel.samples)),
				  el('td', 'num', count(sel.ftotal[f])), el('td', 'num', share(sel.ftotal[f], sel.samples)));
			tr.classList.toggle('hit', !!funcMatch[f] && re !== null);
			tr.classList.toggle('focus', f === state.focus);
			tr.addEventListener('click', () => focus(f));
			body.append(tr);
		}
		tbody.textContent = '';
		tbody.append(body);
		moreBtn.textContent = 'Show all ' + count(rows.length) + ' functions';
		moreBtn.classList.toggle('hide', shown.length === rows.length);
	}
	function focus(f) {
		commit({ focus: state.focus === f ? -1 : f }, true);
	}

	/* The search: which functions and nodes match, and their share of the
	 * selection, each sample counted once. */
	function applySearch() {
		const key = state.search + '\n' + state.ic;
		if (key !== reKey) {
			reKey = key;
			re = null;
			funcMatch = new Uint8Array(funcs.length);
			if (state.search) {
				try {
					re = new RegExp(state.search, state.ic ? 'i' : '');
				} catch (e) {
					re = null;
				}
			}
			if (re)
				funcs.forEach((f, i) => { funcMatch[i] = re.test(f.name); });
			nodeMatch = new Uint8Array(tree.n);
			for (let k = 0; k < tree.n; k++) {
				const i = tree.order[k];
				nodeMatch[i] = funcMatch[tree.func[i]] || (i > 0 && nodeMatch[tree.parent[i]]);
			}
		}
		let sum = 0;
		for (let i = 0; i < tree.n; i++)
			if (nodeMatch[i])
				sum += sel.self[i];
		matched.textContent = !state.search ? '' : re === null ? 'Bad regular expression'
			: 'Matched: ' + (sel.samples ? 100 * sum / sel.samples : 0).toFixed(1) + '% of the selection';
	}

	let treeKey = null;
	function render() {
		const key = selThreads().join('.') + ' ' + (state.range || [0, nbins]).join('-');
		if (key !== selKey) {
			selKey = key;
			sel = selectSamples(data, tree, selThreads(), ...(state.range || [0, nbins]));
			treeKey = null;
		}
		if (searchBox.value !== state.search)
			searchBox.value = state.search;
		icBox.checked = state.ic;
		applySearch();
		renderTimeline();
		for (const [v, b] of tabFor)
			b.setAttribute('aria-selected', String(v === state.view));
		const flame = state.view === 'f' || state.view === 'i';
		flameView.classList.toggle('hide', !flame);
		treeView.classList.toggle('hide', flame);
		if (flame) {
			renderFlame();
		} else {
			if (treeKey !== selKey + state.view) {
				treeKey = selKey + state.view;
				makeTree();
			}
			renderTree();
		}
		renderTable();
	}

	window.addEventListener('popstate', restore);
	window.addEventListener('hashchange', restore);
	let resizing = 0;
	window.addEventListener('resize', () => {
		cancelAnimationFrame(resizing);
		resizing = requestAnimationFrame(render);
	});
	state = decode(location.hash);
	render();
	ready();
}

if (document.body.dataset.kind === 'diff')
	diffPage();
else
	profilePage();
})();
