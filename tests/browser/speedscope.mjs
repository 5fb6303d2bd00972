// tests/browser/speedscope.mjs: speedscope exports, opened in the speedscope
// npm package (its offline build, from file://) in headless Chromium.
//
//   node speedscope.mjs INDEX_HTML split=FILE inject=FILE
//
// PLAYWRIGHT_DIR holds node_modules/playwright-core, CHROMIUM is the browser.
// split is the export of a recording of testdata/split.c (75% of its time
// in path_a, 25% in path_b); inject that of testdata/inject.S, whose
// function names try to run scripts. Each file is given to speedscope's own
// file input, as a user opening it would; the checks read speedscope's
// sandwich view, a table of every function with its total and self time.
// One line per case to stdout: "pass NAME", "fail NAME: WHY" or
// "skip NAME: WHY", which tests/e2e/test_export.sh turns into results.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

import { launch, check } from './harness.mjs';

const [index, ...rest] = process.argv.slice(2);
const files = Object.fromEntries(rest.map((a) => a.split(/=(.*)/s).slice(0, 2)));
const browser = await launch();

// A row of the sandwich table: total time (percent), self time (percent),
// the function's name.
const ROW = String.raw`([\d.]+\s*[a-zµ]*s) \(([<>]?[\d.]+)%\)\s+([\d.]+\s*[a-zµ]*s) \(([<>]?[\d.]+)%\)\s+(.+)`;

// Opens file in a fresh speedscope page, switches to the sandwich view and
// returns the page, its console lines and uncaught errors.
async function open(file) {
	const page = await browser.newPage();
	const log = [], errors = [];
	page.on('console', (m) => log.push(m.text()));
	page.on('pageerror', (e) => errors.push(e.message));
	await page.goto(pathToFileURL(path.resolve(index)).href);
	await page.setInputFiles('input[type=file]', path.resolve(file));
	await page.waitForFunction(() => document.body.innerText.includes('Sandwich'), null, { timeout: 30000 });
	await page.waitForFunction(() => !document.body.innerText.includes('Drag and drop'), null, { timeout: 30000 });
	await page.keyboard.press('3');
	await page.waitForFunction(() => document.body.innerText.includes('Symbol Name'), null, { timeout: 30000 });
	// The table's rows are drawn after its header (later on a loaded
	// machine): wait for the first.
	await page.waitForFunction((row) => new RegExp(row).test(document.body.innerText), ROW, { timeout: 30000 });
	return { page, log, errors };
}

// The sandwich table as { name: [totalPercent, selfPercent] } (speedscope
// writes "<0.01%" and ">99%" at the ends; the bound is taken).
async function sandwich(page) {
	const text = await page.innerText('body');
	const rows = {};
	const re = new RegExp(ROW, 'g');
	for (const m of text.matchAll(re))
		rows[m[5].trim()] = [parseFloat(m[2].replace(/[<>]/, '')), parseFloat(m[4].replace(/[<>]/, ''))];
	return rows;
}

await check('opens-split', async () => {
	const { page, log, errors } = await open(files.split);
	if (!log.some((l) => l.includes('Importing as speedscope json file')))
		throw new Error(`not imported as a speedscope file: ${log.join(' | ')}`);
	if (errors.length)
		throw new Error(`page errors: ${errors.join(' | ')}`);
	const rows = await sandwich(page);
	for (const want of ['fixture_spin', 'path_a', 'path_b', 'run', 'main'])
		if (!(want in rows))
			throw new Error(`no '${want}' in the sandwich view (${Object.keys(rows).join(', ')})`);
	const a = rows.path_a[0], b = rows.path_b[0];
	if (!(a >= 65 && a <= 85 && b >= 15 && b <= 35))
		throw new Error(`path_a ${a}%, path_b ${b}% of the time, not about 75/25`);
	// Every sample ends in fixture_spin, or in a [kernel] frame above it
	// where the tick landed in the kernel.
	const kernel = rows['[kernel]'] ? rows['[kernel]'][1] : 0;
	if (rows.fixture_spin[1] + kernel < 99)
		throw new Error(`fixture_spin's self time is ${rows.fixture_spin[1]}% and [kernel]'s ${kernel}%, not all of it`);
	const title = await page.innerText('body');
	if (!/split \[\d+\]/.test(title))
		throw new Error('the thread profile "split [TID]" is not named');
	await page.close();
});

await check('inject-names-shown-no-script-runs', async () => {
	const { page, errors } = await open(files.inject);
	const rows = await sandwich(page);
	const want = ["</text><script>window.__pwned=1;document.title='pwned'</script>", "a\"b'c&d]]>e;f"];
	for (const w of want)
		if (!(w in rows))
			throw new Error(`no '${w}' in the sandwich view (${Object.keys(rows).join(', ')})`);
	const pwned = await page.evaluate(() => window.__pwned);
	if (pwned !== undefined || (await page.title()) === 'pwned')
		throw new Error(`a script from the data ran (__pwned = ${pwned})`);
	if (errors.length)
		throw new Error(`page errors: ${errors.join(' | ')}`);
	await page.close();
});

await browser.close();
