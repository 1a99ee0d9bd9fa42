import{a,b,c}from"./chunk-CBJH7LOM.js";import"./chunk-2D2QYPKA.js";import"./chunk-II2GVPON.js";export{c as InsightsPanel,b as duration,a as pct};
