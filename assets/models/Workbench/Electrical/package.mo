within Workbench;
package Electrical "Lumped electrical components built on Workbench.Interfaces"
end Electrical;
