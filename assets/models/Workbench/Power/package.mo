within Workbench;
package Power "Energy storage"
end Power;
