// tests/browser/flamegraph.mjs: the interactive flame graph, in headless
// Chromium through playwright-core.
//
//   node flamegraph.mjs [basic=FILE] [inject=FILE] [diff=FILE] [diff-same=FILE]
//                       [diff-shift=FILE] [load:LABEL=FILE]...
//
// PLAYWRIGHT_DIR is the directory that holds node_modules/playwright-core,
// CHROMIUM the browser to drive. basic is the graph of tests/e2e/test_svg.sh's
// synthetic profile (see there for its shape); inject is a graph whose names
// try to run a script; diff is tests/e2e/test_diff.sh's differential graph
// of synthetic traces, in which app+0x200 grew, app+0x100 shrank and
// app+0x300 held (see there); diff-same and diff-shift are its graphs of
// recorded runs of the split fixture, two alike and a shift from 75/25 to
// 67/33; each load: graph is only opened and timed. One line
// per case goes to stdout, "pass NAME", "fail NAME: WHY" or "skip NAME: WHY",
// and "note TEXT" for measurements; test_svg.sh turns them into results.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

import { out, launch, check } from './harness.mjs';

const files = { load: [] };
for (const a of process.argv.slice(2)) {
	const m = /^(basic|inject|diff|diff-same|diff-shift|load:[^=]+)=(.+)$/.exec(a);
	if (!m) {
		console.error(`flamegraph.mjs: bad argument '${a}'`);
		process.exit(2);
	}
	if (m[1].startsWith('load:'))
		files.load.push({ label: m[1].slice(5), file: m[2] });
	else
		files[m[1]] = m[2];
}
const url = (f) => pathToFileURL(path.resolve(f)).href;

const browser = await launch();

function expect(cond, what) {
	if (!cond)
		throw new Error(what);
}

// Opens file in a fresh page and waits for the script to have set up.
async function open(file, hash = '') {
	const page = await browser.newPage();
	const errors = [];
	page.on('pageerror', (e) => errors.push(e.message));
	page.on('dialog', (d) => d.dismiss());
	await page.goto(url(file) + hash, { waitUntil: 'load', timeout: 60000 });
	await page.waitForSelector('svg[data-ready="1"]', { state: 'attached', timeout: 60000 });
	return { page, errors };
}

// The frames of the basic graph (see test_svg.sh), by their name's end.
const A = '[unknown]+0xa000', D = '[unknown]+0xd000';
const frameSel = (depth, x) => `g.f[data-d="${depth}"][data-x="${x}"]`;
async function geometry(page, depth, x) {
	return page.$eval(frameSel(depth, x), (g) => ({
		x: +g.querySelector('rect').getAttribute('x'),
		w: +g.querySelector('rect').getAttribute('width'),
		shown: getComputedStyle(g).display !== 'none',
		label: g.querySelector('text') ? g.querySelector('text').textContent : '',
	}));
}
// Answers the next prompt() with text.
function answer(page, text) {
	return new Promise((resolve) => {
		page.removeAllListeners('dialog');
		page.once('dialog', async (d) => {
			await d.accept(text);
			page.on('dialog', (d2) => d2.dismiss());
			resolve();
		});
	});
}
async function search(page, text, how = 'ctrl-f') {
	const answered = answer(page, text);
	if (how === 'f3')
		await page.keyboard.press('F3');
	else
		await page.keyboard.press('Control+f');
	await answered;
	return page.textContent('#matched');
}

if (files.basic) {
	const { page, errors } = await open(files.basic);
	const width = await page.$eval('svg', (s) => +s.getAttribute('width'));
	const full = width - 20;

	await check('browser-hover-details', async () => {
		await page.hover(frameSel(2, 40));
		const t = await page.textContent('#details');
		expect(t === `${D} (60 samples, 60.00%)`, `status line says '${t}'`);
		const title = await page.$eval(`${frameSel(2, 40)} > title`, (e) => e.textContent);
		expect(title === t, `tooltip says '${title}'`);
	});

	await check('browser-zoom-full-width', async () => {
		const before = await geometry(page, 2, 40);
		expect(Math.abs(before.w - full * 0.6) < 0.02, `D is ${before.w} px wide before the zoom`);
		await page.click(frameSel(2, 40));
		const d = await geometry(page, 2, 40);
		expect(Math.abs(d.x - 10) < 0.02 && Math.abs(d.w - full) < 0.02, `zoomed D is at ${d.x}, ${d.w} px wide`);
		const child = await geometry(page, 3, 40); // D;A: 20 of D's 60
		expect(child.shown && Math.abs(child.w - full / 3) < 0.02, `D;A is ${child.w} px wide`);
		expect(child.label === A, `D;A is labelled '${child.label}'`);
		for (const [dep, what] of [[0, 'all'], [1, 'the root']]) {
			const g = await geometry(page, dep, 0);
			expect(g.shown && Math.abs(g.w - full) < 0.02, `${what}, an ancestor, is ${g.w} px wide`);
		}
		const other = await geometry(page, 2, 0); // A, not under D
		expect(!other.shown, 'A beside D is still shown');
		const under = await geometry(page, 3, 0); // A;B
		expect(!under.shown, 'A;B is still shown');
		expect(await page.isVisible('#unzoom'), 'no Reset Zoom button');
	});

	await check('browser-zoom-in-url', async () => {
		const h = await page.evaluate(() => location.hash);
		expect(/(^#|&)d=2&x=40(&|$)/.test(h), `the fragment is '${h}'`);
	});

	await check('browser-search-matched', async () => {
		let m = await search(page, '0xa000$');
		expect(m === 'Matched: 60.0%', `'0xa000$' gives '${m}'`);
		const fill = await page.$eval(`${frameSel(3, 40)} > rect`, (r) => r.getAttribute('fill'));
		expect(fill === 'rgb(230,0,230)', `a match is filled ${fill}`);
		const hits = await page.$$eval('g.f.hit', (l) => l.length);
		expect(hits === 2, `${hits} frames highlighted, not 2`);
		m = await search(page, '0x(a|d)000$', 'f3');
		expect(m === 'Matched: 100.0%', `D and A, A also under D, give '${m}' (nested matches count once)`);
		m = await search(page, '0xb000');
		expect(m === 'Matched: 90.0%', `'0xb000' gives '${m}'`);
		expect(await page.textContent('#search') === 'Reset Search', 'the button does not offer to reset');
	});

	await check('browser-ignore-case', async () => {
		let m = await search(page, '0XA000$');
		expect(m === 'Matched: 0.0%', `case-sensitive '0XA000$' gives '${m}'`);
		await page.click('#ignorecase');
		m = await page.textContent('#matched');
		expect(m === 'Matched: 60.0%', `ignoring case, '0XA000$' gives '${m}'`);
	});

	await check('browser-search-in-url', async () => {
		const h = await page.evaluate(() => location.hash);
		expect(h.includes('s=0XA000%24') && h.includes('i=1') && h.includes('d=2&x=40'), `the fragment is '${h}'`);
	});

	await check('browser-state-restored-from-url', async () => {
		const h = await page.evaluate(() => location.hash);
		const p2 = await open(files.basic, h);
		const d = await geometry(p2.page, 2, 40);
		const m = await p2.page.textContent('#matched');
		const other = await geometry(p2.page, 2, 0);
		await p2.page.close();
		expect(Math.abs(d.w - full) < 0.02 && !other.shown, 'the zoom is not restored');
		expect(m === 'Matched: 60.0%', `the search is not restored: '${m}'`);
	});

	await check('browser-reset', async () => {
		await page.click('#unzoom');
		const d = await geometry(page, 2, 40);
		expect(Math.abs(d.w - full * 0.6) < 0.02, `D is ${d.w} px wide after Reset Zoom`);
		const a = await geometry(page, 2, 0);
		expect(a.shown && Math.abs(a.w - full * 0.4) < 0.02, `A is back at ${a.w} px`);
		expect(!(await page.isVisible('#unzoom')), 'Reset Zoom is still shown');
		await page.click('#search'); // "Reset Search"
		const m = await page.textContent('#matched');
		const hits = await page.$$eval('g.f.hit', (l) => l.length);
		expect(m.trim() === '' && hits === 0, `after Reset Search: '${m}', ${hits} highlighted`);
		const h = await page.evaluate(() => location.hash);
		expect(h === '#i=1', `the fragment is '${h}'`);
		await page.click('#ignorecase');
		const h2 = await page.evaluate(() => location.hash);
		expect(h2 === '', `the fragment is '${h2}'`);
	});

	await check('browser-no-script-errors', async () => {
		expect(errors.length === 0, errors.join('; '));
	});
	await page.close();
}

if (files.inject) {
	const { page, errors } = await open(files.inject);
	await check('browser-inject-no-script-runs', async () => {
		const r = await page.evaluate(() => ({
			pwned: window.__pwned, title: document.title,
			scripts: document.getElementsByTagName('script').length,
			handlers: document.querySelectorAll('[onload],[onclick],[onmouseover]').length,
		}));
		expect(r.pwned === undefined, `window.__pwned is ${r.pwned}`);
		expect(!/pwned/.test(r.title), `document.title is '${r.title}'`);
		expect(r.scripts === 1, `${r.scripts} script elements`);
		expect(r.handlers === 0, `${r.handlers} elements with event handlers`);
	});
	await check('browser-inject-names-are-text', async () => {
		const names = await page.$$eval('g.f > title', (l) => l.map((t) => t.textContent));
		expect(names.some((n) => n.startsWith('</text><script>')), 'no frame is named </text><script>...');
		expect(names.some((n) => n.includes(']]>')), 'no frame name holds ]]>');
		// hovering and searching a hostile name runs nothing either
		const sel = 'g.f:not(.m)';
		const n = await page.$$eval(sel, (l) => l.length);
		for (let i = 0; i < n; i++) {
			const el = (await page.$$(sel))[i];
			if (await el.isVisible())
				await el.hover({ force: true });
		}
		await search(page, 'script');
		const pwned = await page.evaluate(() => window.__pwned);
		expect(pwned === undefined, 'a hover or search ran a script');
	});
	await check('browser-inject-no-script-errors', async () => {
		expect(errors.length === 0, errors.join('; '));
	});
	await page.close();
}

// A differential graph: the widest frame of each name in want.grey is
// grey, of want.red red and of want.blue blue, as the browser computes
// the fill; the tooltip of each name in want.tooltip matches its pattern
// and the status line shows it when hovered; the legend says what the
// colours mean.
async function diffChecks(label, file, want) {
	const { page, errors } = await open(file);
	const frame = async (name) => {
		const el = (await page.evaluateHandle((n) => [...document.querySelectorAll('g.f')]
			.filter((g) => g.querySelector('title').textContent.startsWith(`${n} (`))
			.reduce((w, g) => (!w || +g.dataset.s > +w.dataset.s ? g : w), null), name)).asElement();
		expect(el, `no frame called ${name}`);
		const fill = await el.$eval('rect', (r) => getComputedStyle(r).fill);
		const title = await el.$eval('title', (t) => t.textContent);
		await el.hover();
		return { fill, title, details: await page.textContent('#details') };
	};
	const rgb = (s) => s.match(/\d+/g).map(Number);
	const colour = async (name, what, ok) => {
		const f = await frame(name);
		expect(ok(...rgb(f.fill)), `${name}, which ${what}, is ${f.fill}`);
	};
	await check(`browser-${label}-not-significant-grey`, async () => {
		for (const name of want.grey)
			await colour(name, 'held', (r, g, b) => r === 220 && g === 220 && b === 220);
	});
	await check(`browser-${label}-significant-red-and-blue`, async () => {
		for (const name of want.red)
			await colour(name, 'grew', (r, g, b) => r === 255 && g === b && g < 220);
		for (const name of want.blue)
			await colour(name, 'shrank', (r, g, b) => b === 255 && r === g && r < 220);
	});
	await check(`browser-${label}-tooltip-interval`, async () => {
		for (const [name, pattern] of Object.entries(want.tooltip)) {
			const f = await frame(name);
			expect(pattern.test(f.title), `the tooltip of ${name} says '${f.title}'`);
			expect(f.details.endsWith(f.title.split('\n')[1]), `the status line says '${f.details}'`);
		}
	});
	await check(`browser-${label}-legend`, async () => {
		const l = await page.$$eval('#legend rect', (rs) => rs.map((r) => [getComputedStyle(r).fill,
			r.nextElementSibling.textContent]));
		const text = l.map((x) => x.join(' ')).join('; ');
		expect(l.length === 3, `the legend is '${text}'`);
		expect(l[0][1].startsWith('grew') && l[1][1].startsWith('shrank') && l[2][1] === 'no significant change'
			&& l[2][0] === 'rgb(220, 220, 220)', `the legend is '${text}'`);
	});
	await check(`browser-${label}-no-script-errors`, async () => {
		expect(errors.length === 0, errors.join('; '));
	});
	await page.close();
}

// An interval and q value, of a change and its bounds of sign s (a
// character class), in the tooltip's words.
const interval = (s) => `${s}\\d+\\.\\d\\dpp \\[${s}\\d+\\.\\d\\dpp, ${s}\\d+\\.\\d\\dpp\\], q <?\\d\\.\\d{4}`;
if (files.diff)
	await diffChecks('diff', files.diff, {
		grey: ['app+0x300'], red: ['app+0x200'], blue: ['app+0x100'],
		tooltip: {
			'app+0x200': /base 20\.00%, new 60\.00%: \+40\.00pp \[\+3\d\.\d\dpp, \+4\d\.\d\dpp\], q <0\.0001, significant$/,
			'app+0x300': /, not significant$/,
		},
	});
// test_diff.sh's recorded runs of split: two alike (75/25), and one of
// them against one shifted to 67/33
if (files['diff-same'])
	await diffChecks('diff-recorded-same', files['diff-same'], {
		grey: ['path_a', 'path_b'], red: [], blue: [],
		tooltip: { path_a: new RegExp(`base 7\\d\\.\\d\\d%, new 7\\d\\.\\d\\d%: ${interval('[-+]')}, not significant$`) },
	});
if (files['diff-shift'])
	await diffChecks('diff-recorded-shift', files['diff-shift'], {
		grey: [], red: ['path_b'], blue: ['path_a'],
		tooltip: {
			path_a: new RegExp(`base 7\\d\\.\\d\\d%, new 6\\d\\.\\d\\d%: ${interval('-')}, significant$`),
			path_b: new RegExp(`base 2\\d\\.\\d\\d%, new 3\\d\\.\\d\\d%: ${interval('\\+')}, significant$`),
		},
	});

for (const { label, file } of files.load) {
	await check(`browser-loads-${label}`, async () => {
		const t0 = Date.now();
		const { page, errors } = await open(file);
		const ms = Date.now() - t0;
		const n = await page.$$eval('g.f', (l) => l.length);
		// a click, to see the graph still answers
		const t1 = Date.now();
		await page.click(frameSel(1, 0));
		const zoomMs = Date.now() - t1;
		await page.close();
		out(`note chromium ${label}: loaded in ${ms} ms, ${n} frames, a zoom took ${zoomMs} ms`);
		expect(errors.length === 0, errors.join('; '));
	});
}

await browser.close();
