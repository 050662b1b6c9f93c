/** The run report bundle (dist/webview/report.js). */
import uplotCss from 'uplot/dist/uPlot.min.css';
import { boot } from './shared/boot';
import { adoptStyles } from './shared/dom';
import { ReportApp } from './report/app';
import css from './report/report.css';

adoptStyles(uplotCss);
boot('report', css, (root, bridge) => {
  const app = new ReportApp(root, bridge);
  (window as { phasewiseReport?: ReportApp }).phasewiseReport = app;
  return app;
});
