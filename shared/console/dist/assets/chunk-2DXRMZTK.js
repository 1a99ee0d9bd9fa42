import{a,b,c}from"./chunk-FEVUGE47.js";import"./chunk-2D2QYPKA.js";import"./chunk-WL46LAHJ.js";export{c as InsightsPanel,b as duration,a as pct};
