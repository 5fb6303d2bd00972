// tests/browser/html.mjs: prof-report's HTML page, in headless Chromium
// through playwright-core.
//
//   node html.mjs [profile=FILE] [inject=FILE] [inject-threads=FILE] [diff=FILE]
//                 [big=FILE] [shots=DIR]
//
// profile is the page of a recorded wall-mode trace of three threads that
// run one after another, about 0.4 s each, and exist only then: "one" in
// phase_one, then "two" in phase_two, then "three" in phase_three. inject
// is the page of a trace whose function names try to run a script
// (window.__pwned, or a dialog), inject-threads one whose thread names
// do; diff is a diff page; big is the page of a million samples,
// only opened and timed. With shots, html-timeline.png,
// html-flamegraph.png and html-diff.png are saved into DIR. Each absent
// file skips its cases. One line per case goes to stdout, as harness.mjs
// says.
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

import { out, launch, check, skip } from './harness.mjs';

const files = {};
for (const a of process.argv.slice(2)) {
	const m = /^(profile|inject|inject-threads|diff|big|shots)=(.+)$/.exec(a);
	if (!m) {
		console.error(`html.mjs: bad argument '${a}'`);
		process.exit(2);
	}
	files[m[1]] = m[2];
}
const url = (f) => pathToFileURL(path.resolve(f)).href;
const shot = (name) => (files.shots ? { path: path.join(files.shots, name) } : null);

const browser = await launch();

function expect(cond, what) {
	if (!cond)
		throw new Error(what);
}

// Opens file in a fresh page, wide enough for the timeline, and waits for
// the first draw. Every script error, dialog and request for anything but
// the file itself is recorded.
async function open(file, hash = '') {
	const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
	const seen = { errors: [], requests: [], dialogs: [] };
	const self = url(file);
	page.on('pageerror', (e) => seen.errors.push(e.message));
	page.on('console', (m) => m.type() === 'error' && seen.errors.push(m.text()));
	page.on('request', (r) => r.url().replace(/#.*$/, '') !== self && seen.requests.push(r.url()));
	page.on('requestfailed', (r) => seen.requests.push(`failed: ${r.url()}`));
	page.on('dialog', (d) => {
		seen.dialogs.push(d.message());
		d.dismiss();
	});
	await page.goto(self + hash, { waitUntil: 'load', timeout: 60000 });
	await page.waitForSelector('body[data-ready="1"]', { state: 'attached', timeout: 60000 });
	return { page, seen };
}

// What the page shows: the flame graph's frame names, the table's
// function names, the call tree's rows.
const frameNames = (page) => page.$$eval('svg.flamegraph g.f', (l) => l.map((g) => g.dataset.name));
const tableNames = (page) => page.$$eval('table.funcs tbody td.name', (l) => l.map((td) => td.title || td.textContent));
const treeRows = (page) => page.$$eval('.trows .trow:not(.more)', (l) => l.map((r) =>
	Array.from(r.children, (c) => c.textContent)));
const state = (page) => page.evaluate(() => location.hash);

// Drags over the timeline's lanes from time a to time b (ns since the
// start), the timeline showing the whole run.
async function drag(page, data, a, b) {
	const box = await page.$eval('.track .lane', (l) => {
		const r = l.getBoundingClientRect();
		return { x: r.left, y: r.top + r.height / 2, w: r.width };
	});
	const x = (t) => box.x + t / (data.nbins * data.bin_ns) * box.w;
	await page.mouse.move(x(a), box.y);
	await page.mouse.down();
	await page.mouse.move((x(a) + x(b)) / 2, box.y, { steps: 4 });
	await page.mouse.move(x(b), box.y, { steps: 4 });
	await page.mouse.up();
}

async function noErrors(seen) {
	expect(seen.errors.length === 0, `script errors: ${seen.errors.join('; ')}`);
	expect(seen.requests.length === 0, `requests: ${seen.requests.join(' ')}`);
	expect(seen.dialogs.length === 0, `dialogs: ${seen.dialogs.join('; ')}`);
}

if (files.profile) {
	const { page, seen } = await open(files.profile);
	const data = await page.evaluate(() => JSON.parse(document.getElementById('prof-data').textContent));
	const two = data.threads.findIndex((t) => t.name === 'two');
	const life = two < 0 ? null : [data.threads[two].start_ns, data.threads[two].end_ns ?? data.nbins * data.bin_ns];
	const middle = life && [life[0] + (life[1] - life[0]) * 0.3, life[0] + (life[1] - life[0]) * 0.7];
	const bins = middle && [Math.floor(middle[0] / data.bin_ns), Math.ceil(middle[1] / data.bin_ns)];

	await check('html-renders', async () => {
		await noErrors(seen);
		expect(await page.isVisible('svg.flamegraph g.f'), 'no flame graph frame is shown');
	});

	await check('html-thread-tracks', async () => {
		const tracks = await page.$$eval('.track', (l) => l.map((t) => t.querySelector('.label').textContent));
		for (const t of data.threads.filter((th) => ['one', 'two', 'three'].includes(th.name))) {
			expect(tracks.some((l) => l.includes(t.name) && l.includes(`tid ${t.tid}`)),
			       `no track labelled ${t.name} and tid ${t.tid}: ${tracks.join(' | ')}`);
		}
		expect(data.threads.filter((th) => ['one', 'two', 'three'].includes(th.name)).length === 3,
		       `the data's threads are ${data.threads.map((t) => t.name).join(', ')}`);
		const drawn = await page.$$eval('.track canvas', (l) => l.every((c) => c.width > 0 && c.height > 0));
		expect(drawn, 'a track has no canvas drawn');
	});

	await check('html-hot-functions', async () => {
		const names = await tableNames(page);
		for (const f of ['phase_one', 'phase_two', 'phase_three'])
			expect(names.includes(f), `the table lacks ${f}: ${names.slice(0, 12).join(', ')}`);
	});

	let first = null;
	await check('html-range-selects', async () => {
		expect(middle, 'no thread called two');
		await drag(page, data, middle[0], middle[1]);
		first = await state(page);
		// the mouse's pixels round to a bin either way
		const r = (/r=(\d+)-(\d+)/.exec(first) || []).slice(1).map(Number);
		expect(Math.abs(r[0] - bins[0]) <= 1 && Math.abs(r[1] - bins[1]) <= 1,
		       `the fragment is '${first}', not about r=${bins[0]}-${bins[1]}`);
		const fl = await frameNames(page), tb = await tableNames(page);
		expect(fl.includes('phase_two') && tb.includes('phase_two'), 'phase_two is not in the flame graph and table');
		for (const f of ['phase_one', 'phase_three'])
			expect(!fl.includes(f) && !tb.includes(f), `${f} is still shown`);
		const info = await page.textContent('.sel-info');
		expect(/Selected \d/.test(info), `the selection says '${info}'`);
	});

	await check('html-history', async () => {
		expect(first, 'no first selection');
		await drag(page, data, 0, data.threads[two].start_ns * 0.5);
		const second = await state(page);
		expect(second !== first, 'a second selection did not change the fragment');
		expect(!(await tableNames(page)).includes('phase_two'), 'before thread two, phase_two is in the table');
		await page.goBack();
		await page.waitForFunction((h) => location.hash === h, first);
		expect((await tableNames(page)).includes('phase_two'), 'back did not restore the first selection');
		await page.goForward();
		await page.waitForFunction((h) => location.hash === h, second);
		expect(!(await tableNames(page)).includes('phase_two'), 'forward did not restore the second selection');
	});

	// thread two alone, as the main thread's wait would be the hottest
	// path otherwise
	await check('html-call-tree', async () => {
		await page.goto(url(files.profile) + `#t=${two}&r=${bins[0]}-${bins[1]}&v=t`);
		await page.waitForFunction(() => location.hash.includes('v=t'));
		let rows = await treeRows(page);
		let row = rows.find((r) => r[4].endsWith('phase_two'));
		expect(row && +row[2].replace(/,/g, '') > 0 && /%$/.test(row[3]),
		       `top down, phase_two is ${JSON.stringify(row)} of ${rows.length} rows`);
		await page.click('[role=tab]:text("Bottom-up")');
		rows = await treeRows(page);
		row = rows.find((r) => r[4].endsWith('phase_two'));
		expect(row && +row[0].replace(/,/g, '') > 0, `bottom up, phase_two (a leaf, or a caller on the hottest path) is ${JSON.stringify(row)}: ${JSON.stringify(rows.slice(0, 4))}`);
	});

	await check('html-search-share', async () => {
		await page.click('[role=tab]:text("Flame graph")');
		await page.fill('#search-box', 'phase_t[wo]+');
		const m = await page.textContent('.matched');
		const share = +(/Matched: ([\d.]+)%/.exec(m) || [])[1];
		expect(share > 50 && share <= 100, `the search shows '${m}'`);
		const hits = await page.$$eval('svg.flamegraph g.f.hit', (l) => l.map((g) => g.dataset.name));
		expect(hits.length && hits.every((t) => t === 'phase_two'), `highlighted frames: ${hits.join('; ')}`);
		const rows = await page.$$eval('table.funcs tr.hit td.name', (l) => l.map((td) => td.textContent));
		expect(rows.join() === 'phase_two', `highlighted rows: ${rows.join(', ')}`);
	});

	await check('html-focus', async () => {
		await page.click('table.funcs td.name:text-is("phase_two")');
		const focused = await page.$$eval('svg.flamegraph g.f.focus', (l) => l.map((g) => g.dataset.name));
		expect(focused.length && focused.every((t) => t === 'phase_two'), `outlined frames: ${focused.join('; ')}`);
		const row = await page.$$eval('table.funcs tr.focus td.name', (l) => l.map((td) => td.textContent));
		expect(row.join() === 'phase_two', `focused rows: ${row.join(', ')}`);
	});

	await check('html-state-restored-from-url', async () => {
		const hash = `#t=${two}&r=${bins[0]}-${bins[1]}&v=t&s=phase&i=1`;
		const p2 = await open(files.profile, hash);
		try {
			const off = await p2.page.$$eval('.track.off .tname', (l) => l.map((e) => e.textContent));
			expect(off.length === data.threads.length - 1 && !off.includes('two'), `the unselected tracks are ${off.join(', ')}`);
			expect(await p2.page.isVisible('.tree-view') && !(await p2.page.isVisible('.flame-view')), 'the call tree is not the view');
			expect(await p2.page.inputValue('#search-box') === 'phase', 'the search box does not hold the search');
			expect(await p2.page.isChecked('.ic input'), 'ignore case is not on');
			const names = await tableNames(p2.page);
			expect(names.includes('phase_two') && !names.includes('phase_one'), `the table holds ${names.join(', ')}`);
			await noErrors(p2.seen);
		} finally {
			await p2.page.close();
		}
	});

	await check('html-tracks-hide-and-move', async () => {
		await page.goto(url(files.profile));
		const order = () => page.$$eval('.track .tname', (l) => l.map((e) => e.textContent));
		const before = await order();
		await page.click('.track:nth-child(1) button[title="Move down"]');
		const moved = await order();
		expect(moved[0] === before[1] && moved[1] === before[0], `moving the first track down gives ${moved.join(', ')}`);
		await page.click('.track:nth-child(1) button[title="Hide this track"]');
		expect((await order()).length === before.length - 1, 'a hidden track is still drawn');
		await page.click('.hidden-bar button');
		expect((await order()).length === before.length, 'the hidden track is not shown again');
	});

	if (files.shots) {
		await page.goto(url(files.profile) + `#r=${bins[0]}-${bins[1]}`);
		await page.waitForFunction(() => document.body.dataset.ready === '1');
		await page.screenshot(shot('html-timeline.png'));
		await (await page.$('.views')).screenshot(shot('html-flamegraph.png'));
	}
	await check('html-no-script-errors', () => noErrors(seen));
	await page.close();
}

// The cases of a page of hostile names: no script from them runs, in
// any view, on a hover, a search or a focus, and names(page), the names
// that page shows, hold at least two of them as text.
async function injectCases(prefix, file, names) {
	const { page, seen } = await open(file);
	const pwned = () => page.evaluate(() => window.__pwned);
	await check(`${prefix}-no-script-runs`, async () => {
		const r = await page.evaluate(() => ({
			scripts: document.getElementsByTagName('script').length,
			handlers: Array.from(document.querySelectorAll('*')).filter((e) =>
				Array.from(e.attributes).some((a) => /^on/i.test(a.name))).length,
			links: document.querySelectorAll('img, iframe, a[href], [src]').length,
		}));
		expect(await pwned() === undefined, 'window.__pwned is set');
		expect(r.scripts === 3, `${r.scripts} script elements, not the page's 3`);
		expect(r.handlers === 0 && r.links === 0, `${r.handlers} elements with handlers, ${r.links} with sources or links`);
	});
	await check(`${prefix}-names-are-text`, async () => {
		const shown = await names(page);
		const hostile = shown.filter((n) => /<script|<img|onerror|onmouseover|javascript:/i.test(n));
		expect(hostile.length >= 2, `no hostile name shown as text: ${shown.slice(0, 20).join(' | ')}`);
		// every view, a hover of every frame and a search run nothing either
		for (const tab of ['Icicle', 'Call tree', 'Bottom-up', 'Flame graph'])
			await page.click(`[role=tab]:text("${tab}")`);
		for (const g of await page.$$('svg.flamegraph g.f:not(.m)'))
			if (await g.isVisible())
				await g.hover({ force: true });
		await page.fill('#search-box', 'script|img');
		await page.click('table.funcs tbody tr');
		expect(await pwned() === undefined, 'a view, hover, search or focus ran a script');
		const long = await page.$$eval('table.funcs td.name', (l) => l.filter((td) => td.title.length > 1000)
			.map((td) => [td.textContent.length, td.title.length]));
		if (long.length)
			expect(long.every(([shown, full]) => shown < 1000 && full > shown), `long names shown as ${JSON.stringify(long)}`);
	});
	await check(`${prefix}-no-script-errors`, () => noErrors(seen));
	await page.close();
}

if (files.inject)
	await injectCases('html-inject', files.inject, async (page) => {
		const frames = await frameNames(page);
		expect(frames.some((n) => /<script|<img|onerror/.test(n)), 'no hostile frame name in the flame graph');
		return tableNames(page);
	});
if (files['inject-threads'])
	await injectCases('html-inject-threads', files['inject-threads'],
			  (page) => page.$$eval('.track .label', (l) => l.map((e) => e.textContent)));

if (files.diff) {
	const { page, seen } = await open(files.diff);
	await check('html-diff-renders', async () => {
		const n = await page.$$eval('#diff svg g.f', (l) => l.length);
		const rows = await page.$$eval('#changes tbody tr', (l) => l.length);
		expect(n > 1 && rows > 0, `${n} frames, ${rows} rows`);
		const g = await page.$('#diff svg g.f[data-d="1"]');
		await g.hover();
		const d = await page.textContent('#diff #details');
		expect(/ \(\d[\d,]* samples?, [\d.]+%\)/.test(d), `hover shows '${d}'`);
		await noErrors(seen);
	});
	await check('html-diff-insignificant-grey', async () => {
		const colours = await page.$$eval('#changes tbody tr', (l) => l.map((r) =>
			[r.classList.contains('insignificant'), getComputedStyle(r.cells[0]).color]));
		const grey = colours.filter((c) => c[0]), plain = colours.filter((c) => !c[0]);
		expect(grey.length && plain.length, `${grey.length} insignificant rows, ${plain.length} significant`);
		expect(grey.every((c) => c[1] !== plain[0][1]), `insignificant rows are ${grey[0][1]}, significant ${plain[0][1]}`);
	});
	await check('html-diff-table-sorts', async () => {
		const last = () => page.$$eval('#changes tbody tr', (l) => l.map((r) => r.cells[r.cells.length - 1].textContent));
		const before = await last();
		await page.click('#changes th:last-child');
		const sorted = await last();
		expect(sorted.join() === before.slice().sort().reverse().join() || sorted.join() === before.slice().sort().join(),
		       `sorted by the last column: ${sorted.join(', ')}`);
		await page.click('#changes th:last-child');
		expect((await last()).join() === sorted.slice().reverse().join(), 'a second click does not reverse the order');
	});
	if (files.shots)
		await page.screenshot(shot('html-diff.png'));
	await page.close();
}

if (files.big) {
	await check('html-big-opens', async () => {
		const t0 = Date.now();
		const { page, seen } = await open(files.big);
		const ms = Date.now() - t0;
		const draw = await page.evaluate(() => performance.getEntriesByName('prof-first-draw')[0].startTime);
		const bytes = fs.statSync(files.big).size;
		// a range selected still answers
		const t1 = Date.now();
		const data = await page.evaluate(() => {
			const d = JSON.parse(document.getElementById('prof-data').textContent);
			return { nbins: d.nbins, bin_ns: d.bin_ns };
		});
		await drag(page, data, data.nbins * data.bin_ns * 0.25, data.nbins * data.bin_ns * 0.5);
		await page.waitForFunction(() => /r=/.test(location.hash));
		const selMs = Date.now() - t1;
		await page.close();
		out(`note chromium html big: ${bytes} bytes, first draw at ${Math.round(draw)} ms, ` +
		    `loaded in ${ms} ms, a range selected in ${selMs} ms`);
		await noErrors(seen);
	});
}

if (!files.profile && !files.inject && !files['inject-threads'] && !files.diff && !files.big)
	skip('html', 'no page given');
await browser.close();
