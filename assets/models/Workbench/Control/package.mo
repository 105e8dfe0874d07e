within Workbench;
package Control "Control blocks"
end Control;
