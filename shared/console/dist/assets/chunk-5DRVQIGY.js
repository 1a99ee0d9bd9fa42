import{a,b,c}from"./chunk-DVNBDYOD.js";import"./chunk-2D2QYPKA.js";import"./chunk-QI7OBEPR.js";export{c as InsightsPanel,b as duration,a as pct};
