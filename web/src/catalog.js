// What the core declares (cpp/core/catalog.h): defaults, limits, training recipes, the phase-change
// score, head metrics and label rules, error codes. The bundle carries the module's own copy, made
// when it is built (scripts/build-web.sh), so the page has it before the module loads.
import catalog from 'catalog:';

export default catalog;
