within Workbench;
package Interfaces "Connectors and partial models"
end Interfaces;
