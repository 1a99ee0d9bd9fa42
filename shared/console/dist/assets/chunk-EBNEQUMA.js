import{a,b,c}from"./chunk-BU7PTFCH.js";import"./chunk-2D2QYPKA.js";import"./chunk-3RKYE2QI.js";export{c as InsightsPanel,b as duration,a as pct};
