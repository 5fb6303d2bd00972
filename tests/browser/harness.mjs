// tests/browser/harness.mjs: what every browser test shares: its result
// lines, the launch of headless Chromium through playwright-core, and
// named cases that never stop one another.
//
// PLAYWRIGHT_DIR is the directory that holds node_modules/playwright-core,
// CHROMIUM the browser to drive. A result is one line on stdout, "pass
// NAME", "fail NAME: WHY" or "skip NAME: WHY" (and "note TEXT"), which the
// e2e script that ran the test turns into results.
import { createRequire } from 'node:module';
import path from 'node:path';

export const out = (s) => process.stdout.write(s.replace(/\n/g, ' ') + '\n');
export const pass = (name) => out(`pass ${name}`);
export const fail = (name, why) => out(`fail ${name}: ${why}`);
export const skip = (name, why) => out(`skip ${name}: ${why}`);

// The browser, or a "skip browser" line and exit 0 if there is none.
export async function launch() {
	let chromium;
	try {
		const require = createRequire(path.join(path.resolve(process.env.PLAYWRIGHT_DIR || '.'), 'noop.js'));
		({ chromium } = require('playwright-core'));
	} catch (e) {
		skip('browser', `playwright-core not found under '${process.env.PLAYWRIGHT_DIR}': ${e.message}`);
		process.exit(0);
	}
	try {
		return await chromium.launch({
			executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
			headless: true,
			args: ['--no-sandbox', '--disable-gpu'],
			timeout: 30000,
		});
	} catch (e) {
		skip('browser', `Chromium cannot start: ${e.message.split('\n')[0]}`);
		process.exit(0);
	}
}

// A case: runs fn, passes unless it throws, and never stops the others.
export async function check(name, fn) {
	try {
		await fn();
		pass(name);
	} catch (e) {
		fail(name, e.message);
	}
}
