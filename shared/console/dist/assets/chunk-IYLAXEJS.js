import{a,b,c}from"./chunk-MXPWFWYT.js";import"./chunk-HEKZ2BR7.js";import"./chunk-TBVAYP5Z.js";export{c as InsightsPanel,b as duration,a as pct};
