/** The waterfall bundle (dist/webview/waterfall.js): one trace, both sides. */
import { boot } from './shared/boot';
import { WaterfallApp } from './waterfall/app';
import css from './waterfall/waterfall.css';

boot('waterfall', css, (root, bridge) => {
  const app = new WaterfallApp(root, bridge);
  (window as { phasewiseWaterfall?: WaterfallApp }).phasewiseWaterfall = app;
  return app;
});
