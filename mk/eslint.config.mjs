// mk/eslint.config.mjs: what ESLint checks in the flame graph's script
// and the HTML page's (tests/e2e/test_svg.sh runs it). The flame graph's
// is ECMAScript 5, the page's ECMAScript 2017, each in one strict
// function, run in the browser that opens the SVG or the page; the rules
// are ESLint's recommended ones that apply to them, and the ones that keep
// them from leaking a global or comparing loosely. Written out rather than
// imported, so the file needs nothing beside ESLint itself.
const rules = {
	// ES5 has no catch without a name.
	'no-undef': 'error', 'no-unused-vars': ['error', { caughtErrors: 'none' }],
	'no-redeclare': 'error',
	'no-dupe-keys': 'error', 'no-dupe-args': 'error', 'no-duplicate-case': 'error',
	'no-unreachable': 'error', 'no-fallthrough': 'error', 'no-empty': 'error',
	'no-cond-assign': 'error', 'no-constant-condition': 'error', 'no-self-assign': 'error',
	'no-func-assign': 'error', 'no-inner-declarations': 'error', 'no-sparse-arrays': 'error',
	'no-unsafe-negation': 'error', 'use-isnan': 'error', 'valid-typeof': 'error',
	'no-useless-escape': 'error', 'no-control-regex': 'error', 'no-global-assign': 'error',
	'no-shadow-restricted-names': 'error', 'no-with': 'error', 'no-eval': 'error',
	'no-implied-eval': 'error', 'no-new-func': 'error', 'no-implicit-globals': 'error',
	strict: ['error', 'function'], eqeqeq: 'error',
	'no-use-before-define': ['error', { functions: false }],
};

export default [
	{
		files: ['report/output/flamegraph.js'],
		languageOptions: {
			ecmaVersion: 5,
			sourceType: 'script',
			// The browser's, and ES2015's Map, which every browser has.
			globals: { window: 'readonly', document: 'readonly', location: 'readonly',
				   history: 'readonly', prompt: 'readonly', Map: 'readonly' },
		},
		linterOptions: { reportUnusedDisableDirectives: 'error' },
		rules,
	},
	{
		files: ['report/output/html.js'],
		languageOptions: {
			ecmaVersion: 2017,
			sourceType: 'script',
			// The browser's that the page uses.
			globals: { window: 'readonly', document: 'readonly', location: 'readonly',
				   history: 'readonly', performance: 'readonly',
				   requestAnimationFrame: 'readonly', cancelAnimationFrame: 'readonly' },
		},
		linterOptions: { reportUnusedDisableDirectives: 'error' },
		rules,
	},
];
