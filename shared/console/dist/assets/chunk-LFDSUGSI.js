import{a,b,c,d,e}from"./chunk-MIFOIZM6.js";import"./chunk-QGBGD5ZE.js";export{e as AutoApplied,a as REVERT_MS,b as RevertAction,d as revertEntry,c as ruleApplied};
