// The widget's part 'downloads' (parts.js): what the PNG, SVG, CSV and safetensors buttons download,
// made when one is first pressed (views/parts/exportButtons.js whenDownloads), so none of it is in the
// widget.
export { exportFigure } from './figureFile.js';
export { exportStage } from './stageFile.js';
