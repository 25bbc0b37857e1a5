// Entry of the operator's Memories tab (bundled by scripts/build-web.mjs into dist/web/app.js).
import { render } from 'preact';
import { App } from './components/app.js';

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
