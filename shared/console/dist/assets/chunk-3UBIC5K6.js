import{a,b,c}from"./chunk-JTJ5QZOA.js";import"./chunk-2D2QYPKA.js";import"./chunk-2WRIB3CZ.js";export{c as InsightsPanel,b as duration,a as pct};
