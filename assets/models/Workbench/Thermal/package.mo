within Workbench;
package Thermal "Thermal models"
end Thermal;
