/** The comparison of two runs (dist/webview/compare.js). */
import { boot } from './shared/boot';
import { CompareApp } from './compare/app';
import css from './compare/compare.css';

boot('compare', css, (root, bridge) => {
  const app = new CompareApp(root, bridge);
  (window as { phasewiseCompare?: CompareApp }).phasewiseCompare = app;
  return app;
});
