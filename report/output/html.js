// html.js: the script of prof-report html's pages (report/output/html.c).
(function () {
'use strict';
document.body.dataset.ready = '1';
})();
