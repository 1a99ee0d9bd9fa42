import{a,b,c,d,e,f}from"./chunk-JMX3C5WS.js";import"./chunk-WL46LAHJ.js";export{f as AutoApplied,a as REVERT_MS,b as RevertAction,c as recordName,e as revertEntry,d as ruleApplied};
